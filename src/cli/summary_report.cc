// Runs the analyses `summary` shows.
#include "cli/summary_report.h"

#include "base/time_units.h"
#include "cli/time_range_option.h"

namespace cprof::cli {

StatusOr<SummaryReport> BuildSummaryReport(const Trace& trace, const std::string& path, const SummaryOptions& o) {
  SummaryReport r;
  r.trace = &trace;
  r.path = path;
  r.top = o.top;
  r.source_format = trace.MetadataText(meta::kSourceFormat);
  ASSIGN_OR_RETURN(std::optional<TimeRange> range, ParseTimeRangeOption(o.time_range));
  ASSIGN_OR_RETURN(r.window, WindowInTrace(trace, range, o.time_range));
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
