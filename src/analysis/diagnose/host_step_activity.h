// What the host thread of each step did outside traced events: the gaps that untraced work
// (Python between operators, an input pipeline, logging) filled, and what the Python sampler and
// the CPU sampler saw running in them. Shared by the host_gap and dataloader rules.
//
//   std::vector<StepHostActivity> a = ComputeStepHostActivity(trace, steps, /*min_gap_ns=*/200'000);
//   for (const StepHostActivity& s : a) total_gap += s.gap_ns;
//   std::vector<FrameTime> f = FramesInIntervals(trace, a[0].thread, a[0].gaps);
//
// The analysed time of a step is its iteration: from its start to IterationEndNs.
// "Traced" means any slice with a duration on the step's own thread track (operators, user
// spans, DataLoader fetches, gc pauses) other than the step slice and slices enclosing it.
// Sampled Python frames live on a child track of the thread ("python (sampled)", category
// python_function) and are evidence, not coverage. Only gaps of at least `min_gap_ns` count:
// the microsecond gaps between consecutive operators are dispatch cost (launch_overhead's), not
// untraced work.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/step_detector.h"
#include "model/trace.h"
#include "stats/interval_set.h"

namespace cprof {

// Where iteration `i` ends: the next step's start when it begins later on the same thread (work
// between record_function-marked steps, such as fetching the next batch, belongs to the loop
// iteration), capped at 10 step durations after the step's end; else the step's end.
int64_t IterationEndNs(const Trace& trace, const std::vector<Step>& steps, size_t i);

struct StepHostActivity {
  size_t step_index = 0;          // into the steps passed in
  TrackId thread = kNoTrack;      // the step slice's track
  int64_t end_ns = 0;             // IterationEndNs: the step, plus any time before the next one
  int64_t step_ns = 0;            // end_ns - the step's start
  int64_t covered_ns = 0;         // union of traced events inside the step
  IntervalSet gaps;               // uncovered intervals of at least min_gap_ns
  int64_t gap_ns = 0;             // gaps.Length()
  int64_t leading_gap_ns = 0;     // the gap starting at the step's start (before its first event)
  int64_t longest_gap_ns = 0;
};

// One entry per step, in the order of `steps`.
std::vector<StepHostActivity> ComputeStepHostActivity(const Trace& trace, const std::vector<Step>& steps,
                                                      int64_t min_gap_ns);

// Time per function seen running in `intervals` on `thread`, from sampled Python frames when
// the thread has them, else from CPU samples (the sample's innermost named frame). `self_ns` is
// time as the innermost frame, `inclusive_ns` anywhere on the stack. Sorted by self_ns, most first.
struct FrameTime {
  std::string name;     // "dir/file.py(12): func" for Python, the symbol for native frames
  std::string caller;   // the innermost caller seen with it (Python only), or empty
  int64_t self_ns = 0;
  int64_t inclusive_ns = 0;
};
struct FramesInGaps {
  std::vector<FrameTime> frames;
  int64_t observed_ns = 0;   // gap time that some frame covers
  bool from_python = false;  // Python sampler (else CPU samples, or nothing)
};
FramesInGaps FramesInIntervals(const Trace& trace, TrackId thread, const IntervalSet& intervals);

// How much of `intervals` the thread spent on a CPU, from CPU samples (cpu-clock sampling counts
// only running time): samples inside `intervals` times the sampling period (metadata
// `cpu_sampling_hz`, else the median interval between the thread's samples). Nothing when the
// thread has fewer than 20 samples (no perf events, or too short to say).
std::optional<int64_t> OnCpuNs(const Trace& trace, TrackId thread, const IntervalSet& intervals);

// The child track of `thread` holding sampled Python frames, or kNoTrack.
TrackId PythonFrameTrack(const Trace& trace, TrackId thread);

}  // namespace cprof
