// Collects flow endpoints (Chrome v1 s/t/f, v2 bind_id) while events stream in and hands them to
// the builder at the end, which binds them to slices in Finalize(). An endpoint's track is the
// row it is written on; where that row could still turn out to be a GPU stream or a host thread
// (a Kineto 'f' on pid 0 / tid 7 is a stream only if kernels are seen there), it is resolved at
// the end, when every row is known.
//
//   FlowCollector flows;
//   flows.Add(pid, tid, /*device_first=*/true, endpoint, &tracks);
//   flows.Finish(&tracks, &builder);
//
// Builder thread only.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "import/json/json_event.h"
#include "import/json/track_mapper.h"
#include "model/trace_builder.h"

namespace cprof::json {

class FlowCollector {
 public:
  // The flow identity: the id within its category. Not the name: the PyTorch 1.x exporter names
  // a flow's start after the op and its end after the kernel. Numeric and string ids never mix.
  static uint64_t Key(std::string_view cat, const JsonFlowId& id);

  // Room for about `n` endpoints (an estimate; more still fit).
  void Reserve(size_t n);
  // An endpoint on raw row (pid, tid); `device_first` (launch flows) prefers the GPU stream
  // written as that row. An endpoint whose track is already set is kept as is.
  void Add(int64_t pid, int64_t tid, bool device_first, const FlowEndpoint& e, TrackMapper* tracks);
  // Adds `delta` ns to every timestamp (Kineto baseTimeNanoseconds).
  void Shift(int64_t delta);
  void Finish(TrackMapper* tracks, TraceBuilder* builder);
  size_t size() const { return endpoints_.size(); }

 private:
  struct Unresolved {
    uint32_t index;
    bool device_first;
    int64_t pid;
    int64_t tid;
  };
  std::vector<FlowEndpoint> endpoints_;
  std::vector<Unresolved> unresolved_;
};

}  // namespace cprof::json
