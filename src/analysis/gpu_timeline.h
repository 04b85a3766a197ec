// The device-time breakdown with TraceLens' definitions (its `gpu_timeline` table): how much of
// the device-active span went to computation, communication not hidden behind computation,
// memcpy hidden behind neither, and idle.
//
//   std::optional<GpuTimeline> tl = ComputeGpuTimeline(trace);
//   if (tl) print(tl->computation_ns, tl->exposed_comm_ns, ..., tl->total_ns);
//
// Definitions (TraceLens TreePerf GPUEventAnalyser, verified against its golden CSVs):
// take every device work slice (device_work.h says which), all devices and streams together;
// C = union(computation), M = union(communication), P = union(memcpy), U = union(all), where
// union merges overlapping and touching intervals. Then
//   computation = |C|, exposed_comm = |M \ C|, exposed_memcpy = |(P \ C) \ M|, busy = |U|,
//   total = last end - first start of U, idle = total - busy,
//   total_comm = |M|, total_memcpy = |P|,
// so computation + exposed_comm + exposed_memcpy + idle == total. All in integer ns (TraceLens
// works in float us; its CSVs are ms). The same definitions apply to NPU traces: tasks on NPU
// streams are computation/memcpy, HCCL communication tracks are communication.
//
// Per step (ComputeGpuTimelinePerStep): the same sets clipped to the step's window
// [start, start + dur); there `total` is the window's length (not the span of the clipped
// events), so idle includes device idle before the first and after the last task of the step.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "analysis/step_detector.h"
#include "analysis/time_window.h"
#include "model/trace.h"
#include "stats/interval_set.h"

namespace cprof {

struct GpuTimeline {
  int64_t computation_ns = 0;
  int64_t exposed_comm_ns = 0;
  int64_t exposed_memcpy_ns = 0;
  int64_t busy_ns = 0;
  int64_t idle_ns = 0;
  int64_t total_ns = 0;
  int64_t total_comm_ns = 0;
  int64_t total_memcpy_ns = 0;
  // Evidence.
  int64_t start_ns = 0;  // first start of the device work considered
  int64_t end_ns = 0;    // last end
  int64_t computation_events = 0;
  int64_t comm_events = 0;
  int64_t memcpy_events = 0;
  bool has_gpu = false;  // some work came from GPU streams
  bool has_npu = false;  // some work came from NPU streams or communication tracks
};

// The classified device intervals of a trace, built once and reused for windows and steps.
struct DeviceIntervals {
  IntervalSet computation;
  IntervalSet comm;
  IntervalSet memcpy;
  IntervalSet all;
  int64_t computation_events = 0;
  int64_t comm_events = 0;
  int64_t memcpy_events = 0;
  bool has_gpu = false;
  bool has_npu = false;
  bool empty() const { return computation_events + comm_events + memcpy_events == 0; }
};

// Device work slices that start inside `window`, classified and unioned. With a bounded window
// the intervals are also clipped to it.
DeviceIntervals CollectDeviceIntervals(const Trace& trace, const TimeWindow& window = {});

// TraceLens' breakdown of `intervals`; nullopt when there is no device work (TraceLens errors).
std::optional<GpuTimeline> ComputeGpuTimeline(const DeviceIntervals& intervals);
std::optional<GpuTimeline> ComputeGpuTimeline(const Trace& trace, const TimeWindow& window = {});

struct StepGpuTimeline {
  int64_t step_id = 0;
  GpuTimeline timeline;
};
// One breakdown per step (see the header comment for what `total` means here).
std::vector<StepGpuTimeline> ComputeGpuTimelinePerStep(const DeviceIntervals& intervals,
                                                       const std::vector<Step>& steps);

}  // namespace cprof
