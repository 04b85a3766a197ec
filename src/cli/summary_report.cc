// Runs the analyses `summary` shows.
#include "cli/summary_report.h"

#include "base/time_units.h"

namespace cprof::cli {

StatusOr<SummaryReport> BuildSummaryReport(const Trace& trace, const std::string& path, const SummaryOptions& o) {
  SummaryReport r;
  r.trace = &trace;
  r.path = path;
  r.top = o.top;
  r.source_format = trace.MetadataText(meta::kSourceFormat);
  if (!o.time_range.empty()) {
    StatusOr<TimeRange> range = ParseTimeRange(o.time_range);
    if (!range.ok()) return range.status().WithContext("--time_range");
    if (range->start && range->end && *range->end <= *range->start) {
      return InvalidInput("--time_range {}: the end must be after the start", o.time_range);
    }
    r.window = TimeWindow::FromRange(trace, *range);
  }
  for (size_t t = 0; t < trace.tracks.size(); ++t) {
    ++r.tracks_by_kind[std::string(TrackKindName(trace.tracks.kind[t]))];
  }
  r.ops = ComputeOpStats(trace, r.window);
  r.steps = DetectSteps(trace, r.window);
  DeviceIntervals device = CollectDeviceIntervals(trace, r.window);
  r.gpu_timeline = ComputeGpuTimeline(device);
  if (r.gpu_timeline) r.gpu_timeline_per_step = ComputeGpuTimelinePerStep(device, r.steps);
  // Without steps the overlap rows cover the whole trace, which a --time_range must not widen.
  if (!r.steps.empty() || !r.window.bounded()) r.step_trace_time = ComputeStepTraceTime(trace, r.steps);
  return r;
}

}  // namespace cprof::cli
