// Matches async spans (nestable b/e, legacy S/F) by their (pid, cat, id) key. Spans of one
// async track may overlap (kAsync), so the builder's per-track B/E stack cannot pair them: an
// 'e' closes the innermost open 'b' with the same key, and only then becomes a slice.
//
//   AsyncTracker async(&builder);
//   async.Begin(key, row);          // 'b': key = (pid, cat, id); row.track_id is its track
//   async.End(key, ts_ns);          // 'e': counts async_unmatched_end if none is open
//   async.Finish(last_ts_ns);                 // unclosed spans end at the trace's last timestamp
//
// Builder thread only.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "model/trace_builder.h"

namespace cprof::json {

class AsyncTracker {
 public:
  explicit AsyncTracker(TraceBuilder* builder) : b_(builder) {}

  void Begin(uint64_t key, const SliceTable::Row& row) { open_[key].push_back(row); }
  void End(uint64_t key, int64_t ts_ns);
  // Slices still open become slices ending at `last_ts_ns` (counted as unclosed_begin).
  void Finish(int64_t last_ts_ns);

 private:
  TraceBuilder* b_;
  std::map<uint64_t, std::vector<SliceTable::Row>> open_;
};

}  // namespace cprof::json
