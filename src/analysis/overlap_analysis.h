// torch_npu's step_trace_time.csv, recomputed from the trace: per step, the time the NPU spent
// computing, communicating (and how much of it was not hidden behind computation), free, the
// stage length and the preparing time, from the `Overlap Analysis` track group.
//
//   std::vector<StepTraceTime> rows = ComputeStepTraceTime(trace, DetectSteps(trace));
//   rows[0].comm_not_overlapped_ns   // "Communication(Not Overlapped)" of the first step
//
// The rule is torch_npu's TraceStepTimeParser (docs/formats/trace_formats.md section 4.5):
//  - Step window: for a ProfilerStep#N step, [first device task launched from inside the CPU
//    step, max(end of the device tasks of the step's last launch, CPU step end)); launches are
//    the host->device flows whose host end starts inside the CPU step. A step with no launched
//    tasks keeps its CPU window. With no steps, one step (id -1) covers the whole trace.
//  - Slices named Computing, Communication, Communication(Not Overlapped) and Free on analysis
//    tracks, and `hcom_receive*` slices (the bubble) on communication tracks, belong to the step
//    whose window holds their start (half-open); they are never clipped.
//  - The four sums are of slice durations; Overlapped = Communication - Not Overlapped;
//    Bubble = sum of hcom_receive*; Not Overlapped Excluding Receive = Not Overlapped - Bubble;
//    Stage = last end - first start of the step's four kinds of slices - Bubble;
//    Preparing = first start of its Computing/Communication slices - the CPU step start
//    (with no step: - the first host slice).
// Everything is integer ns. torch_npu computes Stage and Preparing in float64 us on absolute
// timestamps, which quantises them to 0.25 us; ours are exact, so they may differ from the CSV
// by up to ~0.25 us.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis/step_detector.h"
#include "model/trace.h"

namespace cprof {

struct StepTraceTime {
  int64_t step_id = -1;  // -1: the whole trace, no steps
  int64_t computing_ns = 0;
  int64_t comm_not_overlapped_ns = 0;
  int64_t overlapped_ns = 0;
  int64_t communication_ns = 0;
  int64_t free_ns = 0;
  int64_t stage_ns = 0;
  int64_t bubble_ns = 0;
  int64_t comm_not_overlapped_excl_receive_ns = 0;
  int64_t preparing_ns = 0;
  // Evidence: the window used and how many slices fell in it.
  int64_t window_start_ns = 0;
  int64_t window_end_ns = 0;
  int64_t slice_count = 0;
};

// Whether the trace has an Overlap Analysis group (analysis tracks with those slices).
bool HasOverlapAnalysis(const Trace& trace);

// One row per step (or one for the whole trace when `steps` is empty); empty when the trace has
// no Overlap Analysis slices.
std::vector<StepTraceTime> ComputeStepTraceTime(const Trace& trace, const std::vector<Step>& steps);

}  // namespace cprof
