// Cuts a Chrome trace JSON stream into individual event objects, chunk by chunk, without
// parsing them: the array form `[{...}, ...]` and the object form `{"traceEvents": [...], ...}`
// (whose other top-level members are handed back raw, for metadata). Every event span stays
// inside one padded chunk, so simdjson can parse each event in place.
//
//   EventSplitter splitter(source.get(), 16 << 20);
//   SplitBatch batch;
//   do {
//     RETURN_IF_ERROR(splitter.Next(&batch));
//     for (const EventSpan& e : batch.events) Parse(batch.chunk->data() + e.begin, e.size);
//   } while (!batch.last);
//
// Errors (truncated or malformed structure, an event that is not an object, trailing data, an
// empty file) are kInvalidInput naming the file, the byte offset and the event index. The
// array form may end without its ']' (the Trace Event Format allows it, for writers that
// crashed); unterminated_array() says so. Not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "base/byte_source.h"
#include "base/status.h"
#include "import/json/buffer_pool.h"

namespace cprof::json {

// A block of the (decompressed) input with zeroed padding after it (for SIMD readers). Its
// buffer goes back to the pool it came from when the last batch referring to the chunk is gone.
// (Reading plain files through mmap windows instead was measured slower on the 2-core VM the
// benchmark runs on: page-table churn there costs more than the copy.)
class Chunk {
 public:
  Chunk(std::shared_ptr<BufferPool> pool, size_t size, uint64_t stream_offset);
  ~Chunk();
  Chunk(const Chunk&) = delete;
  Chunk& operator=(const Chunk&) = delete;
  char* data() { return buffer_.data(); }
  const char* data() const { return buffer_.data(); }
  size_t size() const { return size_; }
  // Bytes readable from data() (size() plus padding).
  size_t capacity() const { return buffer_.size(); }
  // Offset of data()[0] in the (decompressed) input.
  uint64_t stream_offset() const { return stream_offset_; }
  void set_size(size_t n) { size_ = n; }

 private:
  std::shared_ptr<BufferPool> pool_;
  BufferPool::Buffer buffer_;
  size_t size_;
  uint64_t stream_offset_;
};

// One event object: bytes [begin, begin + size) of its chunk.
struct EventSpan {
  uint64_t begin;
  uint64_t size;
};

// A top-level member of the object form other than traceEvents, value as raw JSON text.
struct TopLevelMember {
  std::string key;
  std::string value;
  uint64_t offset = 0;  // stream offset of the value
};

struct SplitBatch {
  std::shared_ptr<const Chunk> chunk;
  std::vector<EventSpan> events;
  uint64_t first_event_index = 0;  // index of events[0] in the events array
  std::vector<TopLevelMember> members;
  bool last = false;  // no batch follows
};

class EventSplitter {
 public:
  // `source` must outlive the splitter. `chunk_bytes` is how much is read per Next(). A chunk
  // that must grow past half of `max_chunk_bytes` (0 = no limit) to hold one event is
  // kResourceLimit (the old buffer and the event's interned strings are held beside it).
  EventSplitter(ByteSource* source, size_t chunk_bytes, uint64_t max_chunk_bytes = 0);

  // Reads the next chunk and cuts it into events and members.
  Status Next(SplitBatch* out);

  bool object_form() const { return object_form_; }
  bool unterminated_array() const { return unterminated_array_; }
  uint64_t events_seen() const { return event_index_; }
  uint64_t bytes_read() const { return stream_pos_; }
  // "byte N" or "byte N of the decompressed data", for error messages.
  std::string Where(uint64_t offset) const;

 private:
  enum class State : uint8_t {
    kStart,             // before the top-level value
    kObjectFirstKey,    // after '{': a key or '}'
    kObjectKey,         // after ',': a key
    kObjectColon,       // after a key
    kObjectValue,       // after ':'
    kObjectAfterValue,  // ',' or '}'
    kArrayFirst,        // after '[': an event or ']'
    kArrayNext,         // after ',': an event
    kArrayAfterEvent,   // ',' or ']'
    kDone,              // after the top-level value: whitespace only
  };

  Status NextRead(SplitBatch* out);
  Status CutAndFinish(const std::shared_ptr<Chunk>& chunk, bool final, size_t* consumed, SplitBatch* out);
  // Cuts [0, size) of the chunk; sets *consumed to where the first incomplete item starts.
  Status Cut(const Chunk& chunk, bool final, size_t* consumed, SplitBatch* out);
  Status Error(uint64_t offset, std::string_view what) const;
  Status FinishAtEof(uint64_t offset);
  void CloseArray();

  ByteSource* source_;
  size_t chunk_bytes_;
  uint64_t max_chunk_bytes_;
  std::shared_ptr<BufferPool> pool_ = std::make_shared<BufferPool>();
  State state_ = State::kStart;
  bool object_form_ = false;
  bool saw_events_ = false;
  bool unterminated_array_ = false;
  bool eof_ = false;
  std::string pending_key_;
  uint64_t event_index_ = 0;
  uint64_t stream_pos_ = 0;  // stream offset of the next byte to read
  std::shared_ptr<const Chunk> carry_chunk_;
  size_t carry_begin_ = 0;

 public:
  EventSplitter(const EventSplitter&) = delete;
  EventSplitter& operator=(const EventSplitter&) = delete;
};

}  // namespace cprof::json
