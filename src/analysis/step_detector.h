// The step detector: the one place that decides what a training/inference step is, so every
// command (summary, diagnose, compare, ...) sees the same steps.
//
//   std::vector<Step> steps = DetectSteps(trace);
//   for (const Step& s : steps) use(s.id, s.start_ns, s.dur_ns);
//
// Rules, first match wins:
//  1. `ProfilerStep#N` slices on host thread tracks (Kineto writes them as user_annotation,
//     torch_npu as cpu_op, the PyTorch 1.x legacy export as plain X). When several threads carry
//     them, the thread with the most is used; a ProfilerStep nested in another one is skipped,
//     and so is a last one shorter than 5% of the others' median (the one torch.profiler's last
//     prof.step() opens and its exit closes at once).
//  2. User annotations with step-like names on host threads: "step 12", "train_step#3",
//     "iteration_7", "Iter 2", "eval_step" (case-insensitive). The most frequent name pattern on
//     one thread wins; at least 2 occurrences.
//  3. Repeated top-level spans: on the busiest thread (largest total time of depth-0 slices), the
//     depth-0 name that occurs at least 3 times with the largest total time. Runtime and driver
//     API calls (cuda*/cu*/hip*/acl*/nccl* names, cuda_runtime/cuda_driver categories) are not
//     candidates: a loop of cudaDeviceSynchronize is not a loop of steps. Nor are `trace`'s GC
//     pauses (category gc) and DataLoader fetches (dataloader).
// Frames rebuilt from stack samples (Trace::HoldsSampledFrames) are never steps: a sampled
// `train_step` frame, or `<frozen importlib._bootstrap>` seen three times, is not a marker.
// Steps are sorted by start; id is N from the name when it has one, else the 0-based index.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/time_window.h"
#include "model/trace.h"

namespace cprof {

enum class StepSource {
  kProfilerStep,     // rule 1
  kUserAnnotation,   // rule 2
  kRepeatedSpan,     // rule 3
};
std::string_view StepSourceName(StepSource s);

struct Step {
  int64_t id = 0;
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  std::string name{};
  StepSource source = StepSource::kProfilerStep;
  uint32_t slice_row = 0;  // evidence: the slice the step came from
  int64_t end_ns() const { return start_ns + dur_ns; }
};

// Steps of the whole trace; empty when no rule matches. Slices that never ended are ignored.
std::vector<Step> DetectSteps(const Trace& trace);

// The steps that start inside `window`.
std::vector<Step> DetectSteps(const Trace& trace, const TimeWindow& window);

}  // namespace cprof
