// The neutral record one trace event is parsed into: plain values and string views, no simdjson
// types, no interned ids. Parse threads fill ParsedBatch; the builder thread turns its records
// into model rows, in file order. Views point into the batch's chunk (strings without escapes)
// or its arena (unescaped strings), so a record lives exactly as long as its batch.
#pragma once

#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "import/json/event_splitter.h"
#include "model/import_stats.h"

namespace cprof::json {

// A pid or tid as written: a number, or a string ("CPU functions", "stream 7").
struct JsonId {
  enum class Kind : uint8_t { kNone, kNumber, kString };
  Kind kind = Kind::kNone;
  int64_t num = 0;
  std::string_view str;
};

// A flow or async id as written: an unsigned number (exact, even above 2^53) or opaque text.
struct JsonFlowId {
  enum class Kind : uint8_t { kNone, kNumber, kString };
  Kind kind = Kind::kNone;
  uint64_t num = 0;
  std::string_view str;
  bool empty() const { return kind == Kind::kNone; }
};

struct JsonArg {
  enum class Kind : uint8_t { kNull, kInt, kUint, kDouble, kBool, kString, kJson };
  Kind kind = Kind::kNull;
  union {
    int64_t i;
    uint64_t u;
    double d;
    bool b;
  };
  std::string_view key;
  std::string_view text;  // kString: the value; kJson: nested object/array as JSON text
  JsonArg() : i(0) {}
};

struct JsonEvent {
  uint64_t index = 0;   // position in the events array
  uint64_t offset = 0;  // stream offset of the event's '{'
  char ph = 0;
  char scope = 0;              // instant scope ('s'): 'g', 'p', 't' or 0
  bool has_ts = false;
  bool has_dur = false;
  bool bind_enclosing = false;  // "bp": "e"
  bool id2_local = false;       // the id came from id2.local (process-scoped)
  bool flow_in = false;         // v2 flows on X/B events
  bool flow_out = false;
  // An oddity found while parsing that makes the event unusable; counted, event skipped.
  bool skip = false;
  ImportStat skip_reason = ImportStat::json_bad_field_type;
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  JsonId pid;
  JsonId tid;
  std::string_view name;
  std::string_view cat;
  JsonFlowId id;       // "id", or id2.global / id2.local
  JsonFlowId bind_id;  // v2 flows
  int64_t correlation = -1;  // args.correlation / correlation_id / connection_id
  int64_t external_id = -1;  // args["External id"] (Kineto)
  uint32_t arg_begin = 0;    // args are batch.args[arg_begin, arg_begin + arg_count)
  uint32_t arg_count = 0;
};

// Owns the text of unescaped strings (those the chunk cannot hold as is).
class StringArena {
 public:
  // Forgets every string; keeps one block for reuse.
  void Reset() {
    if (blocks_.size() > 1) blocks_.resize(1);
    big_.clear();
    used_ = 0;
  }
  std::string_view Copy(std::string_view s) {
    if (s.size() > kBlock / 4) return big_.emplace_back(s);
    if (blocks_.empty() || used_ + s.size() > kBlock) {
      blocks_.push_back(std::make_unique<char[]>(kBlock));
      used_ = 0;
    }
    char* dst = blocks_.back().get() + used_;
    s.copy(dst, s.size());
    used_ += s.size();
    return std::string_view(dst, s.size());
  }

 private:
  static constexpr size_t kBlock = 64 << 10;
  std::vector<std::unique_ptr<char[]>> blocks_;
  std::deque<std::string> big_;
  size_t used_ = 0;
};

// One chunk's events, parsed. `error` is set (and the records incomplete) when an event could
// not be parsed at all; the builder thread reports it once every earlier batch is applied.
struct ParsedBatch {
  std::shared_ptr<const Chunk> chunk;
  std::vector<JsonEvent> events;
  std::vector<JsonArg> args;
  std::vector<TopLevelMember> members;
  StringArena arena;
  Status error;
  bool last = false;

  // Empties the batch for reuse, keeping the capacity of its vectors (fresh pages are costly).
  void Reset() {
    chunk.reset();
    events.clear();
    args.clear();
    members.clear();
    arena.Reset();
    error = Status::Ok();
    last = false;
  }
};

}  // namespace cprof::json
