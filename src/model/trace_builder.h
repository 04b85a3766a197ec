// TraceBuilder: the only way importers and the collector put data into a Trace. It owns the
// trackers (process/thread/stream track lookup, B/E matching, flow binding) and Finalize(),
// which sorts the tables and computes slice depth and parent once.
//
//   Trace trace;
//   TraceBuilder b(&trace);
//   TrackId t = b.ThreadTrack(pid, tid);
//   b.AddSlice({.ts_ns = 10, .dur_ns = 5, .track_id = t, .name_id = b.Intern("aten::mm")});
//   RETURN_IF_ERROR(b.Finalize());
//
// Single-threaded. After Finalize() the builder must not be used again.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace cprof {

// One end of a flow given by id (Chrome s/t/f), bound to a slice at Finalize().
struct FlowEndpoint {
  enum class Phase : uint8_t { kStart, kStep, kEnd };
  TrackId track = kNoTrack;
  int64_t ts_ns = 0;
  uint64_t key = 0;              // flow id, already combined with its scope (e.g. category)
  Phase phase = Phase::kStart;
  bool bind_enclosing = true;    // true: the slice enclosing ts; false: the next slice to begin
  // kEnd only. false: the flow stays open after this end, so later ends with the same key fan out
  // from the same source (Chrome v1 'f', one launch -> several kernels); it then counts as
  // unmatched only if no end ever arrives.
  bool close_flow = true;
  FlowKind kind = FlowKind::kOther;
  StringId name_id = kEmptyString;
};

class TraceBuilder {
 public:
  explicit TraceBuilder(Trace* trace);

  Trace& trace() { return *trace_; }
  StringId Intern(std::string_view s) { return trace_->strings.Intern(s); }
  ImportStats& stats() { return trace_->stats; }
  ArgTable& args() { return trace_->args; }

  // Tracks are created on first use and found again by their key.
  TrackId ProcessTrack(int64_t pid);
  TrackId ThreadTrack(int64_t pid, int64_t tid);
  TrackId DeviceTrack(int64_t device);
  TrackId StreamTrack(TrackKind kind, int64_t device, int64_t stream);
  // A named child track of `parent` (counter, async, analysis, communication ...).
  TrackId ChildTrack(TrackId parent, TrackKind kind, StringId name);
  // A track with no lookup key (readers of our own .pb use this).
  TrackId AddTrack(const TrackTable::Row& row);
  // Registers an AddTrack() track under the key its row implies (process: pid; thread: pid,
  // tid; device; stream: kind, device, stream; other kinds: parent, kind, name), so the lookups
  // above return it. For readers that learn a track's kind only after its events (torch_npu
  // rows are typed by a process_name that may come last). No-op if the key is already taken.
  void AdoptTrack(TrackId track);
  TrackTable& tracks() { return trace_->tracks; }

  SliceId AddSlice(const SliceTable::Row& row);
  // B/E: a stack per track. EndSlice returns kNoSlice (and counts it) when nothing is open.
  void BeginSlice(const SliceTable::Row& row);
  SliceId EndSlice(TrackId track, int64_t ts_ns);

  // Points a slice at another arg set: readers that merge a second source into slices an earlier
  // reader made (torch_npu kernel_details.csv columns onto device tasks) build the merged set
  // with args() and swap it in. Before Finalize() only.
  void SetSliceArgs(SliceId slice, ArgSetId args) { trace_->slices.arg_set_id[Index(slice)] = args; }

  void AddFlow(SliceId out, SliceId in, FlowKind kind, StringId name = kEmptyString);
  void AddFlowEndpoint(const FlowEndpoint& e) { flow_endpoints_.push_back(e); }
  // Many endpoints at once (a reader that collected them all), without copying them one by one.
  void AddFlowEndpoints(std::vector<FlowEndpoint> eps) {
    if (flow_endpoints_.empty()) {
      flow_endpoints_.swap(eps);
    } else {
      flow_endpoints_.insert(flow_endpoints_.end(), eps.begin(), eps.end());
    }
  }

  void AddCounter(TrackId track, int64_t ts_ns, double value);
  void AddMemoryEvent(const MemoryEventTable::Row& row);
  void AddSample(const SampleTable::Row& row) { trace_->samples.Append(row); }
  StackId AddStack(StackId parent, FrameId frame);  // interned: same (parent, frame) -> same id
  FrameId AddFrame(const FrameTable::Row& row) { return FrameId{trace_->frames.Append(row)}; }
  void SetMetadata(std::string_view key, Value v);
  void SetMetadataString(std::string_view key, std::string_view v) {
    SetMetadata(key, Value::String(Intern(v)));
  }

  // Makes Finalize() end with exactly `stats` instead of adding its own counts (improper
  // nesting, ...). For readers of a saved model (our .pb) whose stats already include
  // everything Finalize would count again.
  void SetFinalStats(const ImportStats& stats) { final_stats_ = stats; }

  // Closes open B slices, sorts, computes depth/parent, binds flow endpoints, derives the
  // per-track ranges and the trace's time span. Problems are counted in import stats.
  Status Finalize();

 private:
  void SortSlicesAndRemap();
  void ComputeDepthAndParent();
  void BindFlowEndpoints();
  SliceId FindBindingSlice(const FlowEndpoint& e) const;
  void ComputeTimeSpan();

  Trace* trace_;
  std::unordered_map<int64_t, TrackId> processes_;
  std::map<std::pair<int64_t, int64_t>, TrackId> threads_;
  std::unordered_map<int64_t, TrackId> devices_;
  std::map<std::tuple<int, int64_t, int64_t>, TrackId> streams_;
  std::map<std::tuple<uint32_t, int, uint32_t>, TrackId> children_;
  std::unordered_map<uint32_t, std::vector<uint32_t>> open_begins_;  // track -> open slice rows
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> stack_ids_;
  std::vector<FlowEndpoint> flow_endpoints_;
  std::optional<ImportStats> final_stats_;
};

}  // namespace cprof
