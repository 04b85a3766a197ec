// Per-step breakdown of wall time into where it went, summing exactly to the step's duration:
// device compute, exposed communication, exposed memcpy/memset, host framework time, untraced
// host gaps, and idle. What `diagnose` and its rules read to say why a step is as long as it is.
//
//   std::vector<StepBreakdown> b = ComputeStepBreakdown(trace, steps, CollectDeviceIntervals(trace));
//   for (const StepBreakdown& s : b) assert(s.Sum() == s.dur_ns);
//
// Rule, applied to each step's window W = [start, start + dur), by priority so nothing counts twice:
//  1. device_compute   = |C ∩ W|, exposed_comm = |(M \ C) ∩ W|, exposed_memcpy = |((P \ C) \ M) ∩ W|
//     with C, M, P the device computation, communication and memcpy/memset sets of gpu_timeline.h
//     (TraceLens' definitions). D = their union: time the device was busy.
//  2. host_framework   = time in W \ D covered by host operator slices on the step's own thread
//     (the "main host thread": the track of the step's slice; its slices nested below the step,
//     i.e. framework operators and runtime calls): the device waits while the host dispatches.
//  3. untraced_host    = the rest of W \ D that lies between the first start and the last end of
//     those host slices: the host ran code no event covers (Python, the input pipeline inline).
//     A step with no host slices at all counts all of its remaining time here.
//  4. idle             = the rest: no device work and the host outside its traced operator
//     sequence, before its first operator or after its last (the loop around the step).
// On a host-only trace D is empty, so host_framework + untraced_host + idle = dur.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/gpu_timeline.h"
#include "analysis/step_detector.h"
#include "model/trace.h"

namespace cprof {

struct StepBreakdown {
  int64_t step_id = 0;
  int64_t start_ns = 0;
  int64_t dur_ns = 0;
  int64_t device_compute_ns = 0;
  int64_t exposed_comm_ns = 0;
  int64_t exposed_memcpy_ns = 0;
  int64_t host_framework_ns = 0;
  int64_t untraced_host_ns = 0;
  int64_t idle_ns = 0;
  int64_t host_ops = 0;  // host slices nested in the step on its thread (evidence)

  int64_t device_busy_ns() const { return device_compute_ns + exposed_comm_ns + exposed_memcpy_ns; }
  // Time the device was not busy inside the step (the last three parts).
  int64_t device_idle_ns() const { return host_framework_ns + untraced_host_ns + idle_ns; }
  int64_t Sum() const { return device_busy_ns() + device_idle_ns(); }
};

// One entry per step, in the order of `steps`. `device` may be empty (host-only trace). A step
// with no slice of its own (slice_row out of range: a window standing in for a step) takes its
// host slices from `host_track` instead: every slice there inside the window.
std::vector<StepBreakdown> ComputeStepBreakdown(const Trace& trace, const std::vector<Step>& steps,
                                                const DeviceIntervals& device,
                                                std::optional<TrackId> host_track = std::nullopt);

}  // namespace cprof
