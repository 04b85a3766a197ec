// Where each model track goes in Chrome JSON, which only knows (pid, tid) rows. A track that
// kept the row it was read from (pid, tid set: host threads, torch_npu device rows) goes back
// there; GPU and NPU streams without one are pid = device, tid = stream (as Kineto writes
// them); any other track gets a row under its ancestor's pid with a synthetic tid, named by a
// thread_name M event. Synthetic ids start at 2^40, a range no real pid or tid uses.
//
// Process names: each process and device track names its pid; a pid that only torch_npu's
// device groups use gets the group name torch_npu writes ("Ascend Hardware", "HCCL",
// "Overlap Analysis"), so that our importer files its rows under the NPU again.
//
//   ChromeRows rows(trace);
//   ChromeRows::Row r = rows.SliceRow(track);   // {"pid": r.pid, "tid": r.tid}
#pragma once

#include <cstdint>
#include <vector>

#include "export/chrome/json_sink.h"
#include "model/trace.h"

namespace cprof {

class ChromeRows {
 public:
  struct Row {
    int64_t pid = 0;
    int64_t tid = 0;
  };

  explicit ChromeRows(const Trace& trace);

  Row SliceRow(TrackId track) const;
  int64_t Pid(TrackId track) const {
    return track == kNoTrack || Index(track) >= pid_.size() ? kSyntheticBase : pid_[Index(track)];
  }
  // process_name / process_sort_index / thread_name / thread_sort_index events.
  void WriteMetadataEvents(JsonSink* out) const;

  static constexpr int64_t kSyntheticBase = int64_t{1} << 40;

 private:
  const Trace& trace_;
  std::vector<int64_t> pid_;
};

}  // namespace cprof
