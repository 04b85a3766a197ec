// Turns parsed JSON events into model rows through the TraceBuilder, in file order: the phase
// semantics of the Chrome Trace Event Format plus the Kineto, PyTorch-legacy and torch_npu
// readings of rows, categories, args and flows.
//
//   EventTranslator tr(&builder, "trace.json", /*compressed=*/false);
//   for (ParsedBatch& batch : batches) RETURN_IF_ERROR(tr.Apply(batch));
//   RETURN_IF_ERROR(tr.Finish());            // tracks, flows, metadata; the caller finalizes
//
// Oddities inside valid events (unknown phase, missing ts, unmatched ends, ...) are counted in
// import stats. Builder thread only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "import/json/async_tracker.h"
#include "import/json/flow_collector.h"
#include "import/json/json_event.h"
#include "import/json/trace_metadata.h"
#include "import/json/track_mapper.h"
#include "model/trace_builder.h"

namespace cprof::json {

class EventTranslator {
 public:
  EventTranslator(TraceBuilder* builder, std::string path, bool compressed);

  // Sizes internal buffers for about `json_bytes` of input (an estimate).
  void Reserve(uint64_t json_bytes) { flows_.Reserve(json_bytes / 600); }
  Status Apply(const ParsedBatch& batch);
  // Call once after the last batch; the caller then runs builder->Finalize().
  Status Finish();

  TraceMetadata& metadata() { return meta_; }

 private:
  void OnEvent(const ParsedBatch& b, const JsonEvent& ev);
  void OnComplete(const ParsedBatch& b, const JsonEvent& ev, int64_t pid, int64_t tid);
  void OnBegin(const ParsedBatch& b, const JsonEvent& ev, int64_t pid, int64_t tid);
  void OnInstant(const ParsedBatch& b, const JsonEvent& ev, int64_t pid, int64_t tid);
  void OnMemory(const ParsedBatch& b, const JsonEvent& ev, int64_t pid, int64_t tid);
  void OnCounter(const ParsedBatch& b, const JsonEvent& ev, int64_t pid);
  void OnMetadata(const ParsedBatch& b, const JsonEvent& ev, int64_t pid, int64_t tid);
  void OnFlow(const JsonEvent& ev, int64_t pid, int64_t tid);
  void OnFlowV2(const JsonEvent& ev, TrackId track);
  void OnAsync(const ParsedBatch& b, const JsonEvent& ev, int64_t pid);

  // The track of the row an X/B/E/i event is written on: a GPU stream for Kineto device
  // categories and legacy "CUDA functions", else the (pid, tid) host row.
  TrackId RowTrack(const JsonEvent& ev, int64_t pid, int64_t tid);
  SliceTable::Row MakeRow(const ParsedBatch& b, const JsonEvent& ev, TrackId track, int64_t dur_ns);
  ArgSetId AddArgs(const ParsedBatch& b, const JsonEvent& ev);
  StringId Category(std::string_view cat);
  bool IsDeviceCategory(StringId cat);
  void Shift(int64_t delta);

  TraceBuilder* b_;
  std::string path_;
  TrackMapper tracks_;
  FlowCollector flows_;
  AsyncTracker async_;
  TraceMetadata meta_;
  bool compressed_;
  int64_t last_ts_ns_ = INT64_MIN;  // latest event end seen, for unclosed async spans
  // Category cache: the last category text and its id; per-category device classification.
  std::string last_cat_;
  StringId last_cat_id_ = kEmptyString;
  std::vector<int8_t> device_category_;  // by StringId index: -1 unknown, 0 no, 1 yes
  // Events of one category mostly repeat the same arg keys (and often values) in the same order:
  // per (category, arg position), the last text and its id save most interning.
  struct CachedText {
    std::string text;
    StringId id = kEmptyString;
  };
  struct ArgCache {
    std::vector<CachedText> keys, values;
  };
  std::vector<ArgCache> arg_cache_;  // by category StringId index
  StringId CachedIntern(CachedText& slot, std::string_view text);
  std::string scratch_;
};

}  // namespace cprof::json
