// Id-keyed begin/end matching for async spans.
#include "import/json/async_tracker.h"

#include <algorithm>

namespace cprof::json {

void AsyncTracker::End(uint64_t key, int64_t ts_ns) {
  auto it = open_.find(key);
  if (it == open_.end() || it->second.empty()) {
    b_->stats().Add(ImportStat::async_unmatched_end);
    return;
  }
  SliceTable::Row row = it->second.back();
  it->second.pop_back();
  if (it->second.empty()) open_.erase(it);
  row.dur_ns = ts_ns - row.ts_ns;
  if (row.dur_ns < 0) {
    b_->stats().Add(ImportStat::negative_duration);
    row.dur_ns = 0;
  }
  b_->AddSlice(row);
}

void AsyncTracker::Finish(int64_t last_ts_ns) {
  for (auto& [key, rows] : open_) {
    for (SliceTable::Row& row : rows) {
      row.dur_ns = std::max<int64_t>(0, last_ts_ns - row.ts_ns);
      b_->AddSlice(row);
      b_->stats().Add(ImportStat::unclosed_begin);
    }
  }
  open_.clear();
}

}  // namespace cprof::json
