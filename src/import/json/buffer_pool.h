// Large read buffers, reused: in a VM every first touch of a fresh page is a costly fault, so the
// chunk buffers of a multi-GB import come from a small pool of mmap'd regions that ask for
// transparent huge pages, instead of a new allocation per chunk.
//
//   auto pool = std::make_shared<BufferPool>();
//   BufferPool::Buffer b = pool->Take(8 << 20);   // at least 8 MiB, contents undefined
//   pool->Give(std::move(b));                     // back for the next Take()
//
// Thread-safe.
#pragma once

#include <cstddef>
#include <mutex>
#include <vector>

namespace cprof::json {

// Asks the kernel to back [p, p + bytes) with huge pages where it can (a hint; no-op elsewhere).
void AdviseHugePages(void* p, size_t bytes);

class BufferPool {
 public:
  class Buffer {
   public:
    Buffer() = default;
    Buffer(Buffer&& o) noexcept : data_(o.data_), size_(o.size_) { o.data_ = nullptr, o.size_ = 0; }
    Buffer& operator=(Buffer&& o) noexcept;
    ~Buffer();
    char* data() const { return data_; }
    size_t size() const { return size_; }

   private:
    friend class BufferPool;
    Buffer(char* data, size_t size) : data_(data), size_(size) {}
    char* data_ = nullptr;
    size_t size_ = 0;
  };

  explicit BufferPool(size_t keep = 8) : keep_(keep) {}
  // A buffer of at least `min_bytes`; an empty one (data() == nullptr) if memory ran out.
  Buffer Take(size_t min_bytes);
  void Give(Buffer b);

 private:
  std::mutex mu_;
  std::vector<Buffer> free_;
  size_t keep_;
};

}  // namespace cprof::json
