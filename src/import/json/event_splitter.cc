// The top-level state machine of the splitter; the structural scanner finds each event's end.
#include "import/json/event_splitter.h"

#include <algorithm>
#include <cctype>
#include <cstring>

#include <fmt/format.h>

#include "base/byte_size.h"
#include "import/json/structural_scanner.h"

namespace cprof::json {
namespace {

inline bool IsSpace(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Length of a scalar token (number, true, false, null) starting at p, or kIncomplete.
size_t FindScalarEnd(const char* p, size_t len, bool final) {
  for (size_t i = 0; i < len; ++i) {
    const char c = p[i];
    if (c == ',' || c == '}' || c == ']' || IsSpace(c)) return i;
  }
  return final ? len : kIncomplete;
}

// The value of a JSON string token without its quotes; escapes other than \" and \\ are kept
// as written (top-level keys are plain ASCII in every writer we know).
std::string UnquoteKey(const char* p, size_t n) {
  std::string out;
  out.reserve(n);
  for (size_t i = 1; i + 1 < n; ++i) {
    if (p[i] == '\\' && i + 2 < n && (p[i + 1] == '"' || p[i + 1] == '\\')) ++i;
    out.push_back(p[i]);
  }
  return out;
}

}  // namespace

Chunk::Chunk(std::shared_ptr<BufferPool> pool, size_t size, uint64_t stream_offset)
    : pool_(std::move(pool)), buffer_(pool_->Take(size + kScanPadding)), size_(size), stream_offset_(stream_offset) {}

Chunk::~Chunk() { pool_->Give(std::move(buffer_)); }

EventSplitter::EventSplitter(ByteSource* source, size_t chunk_bytes, uint64_t max_chunk_bytes)
    : source_(source), chunk_bytes_(std::max<size_t>(chunk_bytes, 64)), max_chunk_bytes_(max_chunk_bytes) {}

std::string EventSplitter::Where(uint64_t offset) const {
  return source_->compressed() ? fmt::format("byte {} of the decompressed data", offset)
                               : fmt::format("byte {}", offset);
}

Status EventSplitter::Error(uint64_t offset, std::string_view what) const {
  return InvalidInput("{}: invalid trace JSON at {}: {}", source_->path(), Where(offset), what);
}

Status EventSplitter::Next(SplitBatch* out) {
  out->events.clear();
  out->members.clear();
  out->first_event_index = event_index_;
  out->last = false;
  return NextRead(out);
}

Status EventSplitter::CutAndFinish(const std::shared_ptr<Chunk>& chunk, bool final, size_t* consumed,
                                   SplitBatch* out) {
  RETURN_IF_ERROR(Cut(*chunk, final, consumed, out));
  if (final) {
    RETURN_IF_ERROR(FinishAtEof(chunk->stream_offset() + *consumed));
    out->last = true;
  }
  out->chunk = chunk;
  return Status::Ok();
}

Status EventSplitter::NextRead(SplitBatch* out) {
  const size_t carry = carry_chunk_ ? carry_chunk_->size() - carry_begin_ : 0;
  // A large carried item (one huge event) doubles the read, so rescanning it stays linear.
  const size_t want = std::max(chunk_bytes_, carry);
  // The grown buffer, the one it is copied from, and the event's strings once interned: a buffer
  // past half the limit would take the process well past the limit.
  if (max_chunk_bytes_ != 0 && carry > 0 && carry + want > max_chunk_bytes_ / 2) {
    return ResourceLimit("{}: event #{} at {} is larger than {} and still not complete; it does not fit the "
                         "memory limit of {}",
                         source_->path(), event_index_, Where(stream_pos_ - carry), FormatByteSize(carry),
                         FormatByteSize(max_chunk_bytes_));
  }
  auto chunk = std::make_shared<Chunk>(pool_, carry + want, stream_pos_ - carry);
  if (chunk->data() == nullptr) {
    return ResourceLimit("{}: out of memory for a {} read buffer", source_->path(), FormatByteSize(carry + want));
  }
  if (carry) std::memcpy(chunk->data(), carry_chunk_->data() + carry_begin_, carry);
  carry_chunk_.reset();
  size_t filled = carry;
  while (!eof_ && filled < carry + want) {
    ASSIGN_OR_RETURN(size_t n, source_->Read(chunk->data() + filled, carry + want - filled));
    if (n == 0) eof_ = true;
    filled += n;
    stream_pos_ += n;
  }
  chunk->set_size(filled);
  std::memset(chunk->data() + filled, 0, kScanPadding);

  size_t consumed = 0;
  RETURN_IF_ERROR(CutAndFinish(chunk, eof_, &consumed, out));
  if (!eof_ && consumed < filled) {
    carry_chunk_ = chunk;
    carry_begin_ = consumed;
  }
  return Status::Ok();
}

void EventSplitter::CloseArray() { state_ = object_form_ ? State::kObjectAfterValue : State::kDone; }

Status EventSplitter::Cut(const Chunk& chunk, bool final, size_t* consumed, SplitBatch* out) {
  const char* data = chunk.data();
  const size_t size = chunk.size();
  const uint64_t base = chunk.stream_offset();
  size_t i = 0;
  if (state_ == State::kStart && base == 0 && size >= 3 && std::memcmp(data, "\xEF\xBB\xBF", 3) == 0) {
    i = 3;  // UTF-8 byte order mark
  }
  for (;;) {
    while (i < size && IsSpace(data[i])) ++i;
    *consumed = i;
    if (i >= size) return Status::Ok();
    const char c = data[i];
    const char* p = data + i;
    const size_t left = size - i;
    switch (state_) {
      case State::kStart:
        if (c == '{') {
          object_form_ = true;
          state_ = State::kObjectFirstKey;
        } else if (c == '[') {
          saw_events_ = true;
          state_ = State::kArrayFirst;
        } else {
          return Error(base + i, fmt::format("expected a JSON object or array, found {}",
                                             std::isprint(static_cast<unsigned char>(c))
                                                 ? fmt::format("'{}'", c)
                                                 : fmt::format("byte 0x{:02x}", static_cast<unsigned char>(c))));
        }
        ++i;
        break;
      case State::kObjectFirstKey:
      case State::kObjectKey: {
        if (c == '}' && state_ == State::kObjectFirstKey) {
          state_ = State::kDone;
          ++i;
          break;
        }
        if (c != '"') return Error(base + i, "expected a quoted key in the top-level object");
        const size_t n = FindStringEnd(p, left);
        if (n == kIncomplete) return Status::Ok();
        pending_key_ = UnquoteKey(p, n);
        state_ = State::kObjectColon;
        i += n;
        break;
      }
      case State::kObjectColon:
        if (c != ':') return Error(base + i, fmt::format("expected ':' after the key \"{}\"", pending_key_));
        state_ = State::kObjectValue;
        ++i;
        break;
      case State::kObjectValue: {
        if (pending_key_ == "traceEvents") {
          if (c != '[') return Error(base + i, "'traceEvents' is not an array");
          if (saw_events_) return Error(base + i, "a second 'traceEvents' array");
          saw_events_ = true;
          state_ = State::kArrayFirst;
          ++i;
          break;
        }
        size_t n;
        if (c == '{' || c == '[') {
          n = FindCompositeEnd(p, left);
        } else if (c == '"') {
          n = FindStringEnd(p, left);
        } else {
          n = FindScalarEnd(p, left, final);
        }
        if (n == kIncomplete) return Status::Ok();
        out->members.push_back({std::move(pending_key_), std::string(p, n), base + i});
        pending_key_.clear();
        state_ = State::kObjectAfterValue;
        i += n;
        break;
      }
      case State::kObjectAfterValue:
        if (c == ',') {
          state_ = State::kObjectKey;
        } else if (c == '}') {
          state_ = State::kDone;
        } else {
          return Error(base + i, "expected ',' or '}' in the top-level object");
        }
        ++i;
        break;
      case State::kArrayFirst:
      case State::kArrayNext: {
        if (c == ']' && state_ == State::kArrayFirst) {
          CloseArray();
          ++i;
          break;
        }
        if (c != '{') {
          return Error(base + i, fmt::format("event #{} is not a JSON object{}", event_index_,
                                             c == ']' ? " (trailing comma before ']')" : ""));
        }
        const size_t n = FindCompositeEnd(p, left);
        if (n == kIncomplete) return Status::Ok();
        out->events.push_back({i, n});
        ++event_index_;
        state_ = State::kArrayAfterEvent;
        i += n;
        break;
      }
      case State::kArrayAfterEvent:
        if (c == ',') {
          state_ = State::kArrayNext;
        } else if (c == ']') {
          CloseArray();
        } else {
          return Error(base + i, fmt::format("expected ',' or ']' after event #{}", event_index_ - 1));
        }
        ++i;
        break;
      case State::kDone:
        return Error(base + i, "unexpected data after the end of the JSON document");
    }
  }
}

Status EventSplitter::FinishAtEof(uint64_t offset) {
  if (offset == 0 && stream_pos_ == 0) return InvalidInput("{}: empty file", source_->path());
  switch (state_) {
    case State::kDone:
      if (!saw_events_) {
        return InvalidInput("{}: a JSON object without a 'traceEvents' array; not a Chrome trace", source_->path());
      }
      return Status::Ok();
    case State::kStart:
      return InvalidInput("{}: the file holds only whitespace, no JSON value", source_->path());
    case State::kArrayFirst:
    case State::kArrayNext:
    case State::kArrayAfterEvent: {
      const bool pending = offset < stream_pos_;
      if (pending) {
        return Error(offset, fmt::format("truncated inside event #{}: the file ends before its closing '}}'",
                                         event_index_));
      }
      // The array form may stop after any complete event, with or without a trailing comma.
      if (!object_form_) {
        unterminated_array_ = true;
        state_ = State::kDone;
        return Status::Ok();
      }
      return Error(offset, fmt::format("truncated: the file ends inside the 'traceEvents' array after {} events",
                                       event_index_));
    }
    default:
      return Error(offset, "truncated: the file ends inside the top-level object");
  }
}

}  // namespace cprof::json
