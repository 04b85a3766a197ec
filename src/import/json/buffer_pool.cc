// mmap'd, huge-page-advised buffers and their free list.
#include "import/json/buffer_pool.h"

#include <sys/mman.h>

#include <cstdint>

namespace cprof::json {
namespace {

constexpr size_t kHugePage = size_t{2} << 20;

}  // namespace

void AdviseHugePages(void* p, size_t bytes) {
#ifdef MADV_HUGEPAGE
  const uintptr_t begin = (reinterpret_cast<uintptr_t>(p) + kHugePage - 1) & ~(kHugePage - 1);
  const uintptr_t end = (reinterpret_cast<uintptr_t>(p) + bytes) & ~(kHugePage - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#endif
}

BufferPool::Buffer& BufferPool::Buffer::operator=(Buffer&& o) noexcept {
  if (this != &o) {
    if (data_ != nullptr) munmap(data_, size_);
    data_ = o.data_;
    size_ = o.size_;
    o.data_ = nullptr;
    o.size_ = 0;
  }
  return *this;
}

BufferPool::Buffer::~Buffer() {
  if (data_ != nullptr) munmap(data_, size_);
}

BufferPool::Buffer BufferPool::Take(size_t min_bytes) {
  {
    std::lock_guard lock(mu_);
    for (size_t i = 0; i < free_.size(); ++i) {
      if (free_[i].size() >= min_bytes) {
        Buffer b = std::move(free_[i]);
        free_.erase(free_.begin() + static_cast<std::ptrdiff_t>(i));
        return b;
      }
    }
    // None is large enough: one event is outgrowing the chunks. The smaller free buffers are let
    // go, or a buffer doubling to hold a huge event would keep every size it passed through
    // (8 + 16 + ... + 128 MiB held beside a 256 MiB buffer).
    std::vector<Buffer> smaller;
    smaller.swap(free_);
  }
  const size_t size = (min_bytes + kHugePage - 1) & ~(kHugePage - 1);
  void* p = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return Buffer();
  AdviseHugePages(p, size);
  return Buffer(static_cast<char*>(p), size);
}

void BufferPool::Give(Buffer b) {
  if (b.data() == nullptr) return;
  std::lock_guard lock(mu_);
  if (free_.size() < keep_) free_.push_back(std::move(b));
}

}  // namespace cprof::json
