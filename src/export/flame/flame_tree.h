// Flame trees: stacks aggregated by path, weighted by time or by sample weight. The HTML flame
// graph, the folded-stack export and the differential flame graph are all built from these.
//
//   FlameTree ops = BuildSliceFlameTree(trace, {.tracks = FlameTracks::kHost});
//   FlameTree cpu = BuildSampleFlameTree(trace, {});
//   AttachBaseline(&ops, BuildSliceFlameTree(baseline_trace, {.tracks = FlameTracks::kHost}));
//   for (uint32_t n = 1; n < ops.size(); ++n) use(ops.name(n), ops.value[n], ops.SelfValue(n));
//
// Slice trees ("operator nesting weighted by time"): each slice adds its duration, clipped to
// its parent slice and to the time window, to the node of its name path (top-level slice first).
// Sample trees: each sample adds its weight to the node of its stack (outermost frame first).
// With `by_track`, the first level under the root is the track (the folded export does this,
// like perf's per-command stacks); without it, all tracks merge, so that two runs with
// different pids and tids still compare. Names ending in "#<digits>" (ProfilerStep#12) become
// "#*" so that repeated steps merge. Not thread-safe; the trace must outlive nothing here.
#pragma once

#include <cstdint>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/string_pool.h"
#include "model/trace.h"

namespace cprof {

class FlameTree {
 public:
  static constexpr uint32_t kRoot = 0;
  static constexpr uint32_t kNoParent = UINT32_MAX;

  explicit FlameTree(std::string title = "", std::string unit = "ns");

  std::string title;
  std::string unit;  // "ns" (time-weighted) or "samples"
  // One entry per node; node 0 is the root; a parent always comes before its children.
  std::vector<uint32_t> parent;
  std::vector<StringId> name_id;  // in `strings`
  std::vector<int64_t> value;     // total weight of the node, children included
  std::vector<int64_t> baseline;  // same per node for the baseline run; empty without one
  StringPool strings;

  size_t size() const { return parent.size(); }
  std::string_view name(uint32_t node) const { return strings.Get(name_id[node]); }
  bool has_baseline() const { return !baseline.empty(); }
  // The child of `node` called `name`, added (with weight 0) if absent.
  uint32_t Child(uint32_t node, std::string_view name);
  // value minus the children's values (never below zero).
  std::vector<int64_t> SelfValues() const;

 private:
  std::unordered_map<uint64_t, uint32_t> children_;  // (parent << 32 | name) -> node
};

enum class FlameTracks { kHost, kDevice, kAll };

struct FlameOptions {
  FlameTracks tracks = FlameTracks::kAll;
  bool by_track = false;
  // Absolute window [start_ns, end_ns); the default is the whole trace.
  int64_t start_ns = std::numeric_limits<int64_t>::min();
  int64_t end_ns = std::numeric_limits<int64_t>::max();
};

// Operator nesting weighted by time, from the slices of the selected tracks.
FlameTree BuildSliceFlameTree(const Trace& trace, const FlameOptions& options);
// CPU samples (the collector's perf/proc sampler), weighted by sample weight.
FlameTree BuildSampleFlameTree(const Trace& trace, const FlameOptions& options);

// Sets `tree->baseline` from `baseline` by matching name paths; paths only the baseline has
// are added with value 0.
void AttachBaseline(FlameTree* tree, const FlameTree& baseline);

// The display name of a frame: function, else module+offset, else the address.
std::string FrameName(const Trace& trace, FrameId frame);

// The flame-tree spelling of a slice name ("ProfilerStep#12" -> "ProfilerStep#*").
std::string_view FlameName(std::string_view name, std::string* scratch);

}  // namespace cprof
