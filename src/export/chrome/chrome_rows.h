// Where each model track goes in Chrome JSON, which only knows (pid, tid) rows: host threads
// keep their pid/tid; GPU and NPU streams are pid = device, tid = stream (as Kineto writes
// them); devices are pid = device; every other track (communication, async, analysis, cpu
// cores, slices on counter tracks) gets a row of its own under its ancestor's pid, with a
// synthetic tid, named by a thread_name M event. Tracks without an id get synthetic ids from
// 2^40 up, a range no real pid or tid uses.
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
  int64_t Pid(TrackId track) const { return track == kNoTrack ? kSyntheticBase : pid_[Index(track)]; }
  // process_name / process_sort_index / thread_name / thread_sort_index events.
  void WriteMetadataEvents(JsonSink* out) const;

  static constexpr int64_t kSyntheticBase = int64_t{1} << 40;

 private:
  const Trace& trace_;
  std::vector<int64_t> pid_;
};

}  // namespace cprof
