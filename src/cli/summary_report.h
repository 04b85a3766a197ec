// What `cann-profiler summary` shows, gathered from the analyses in one struct so the text and
// JSON renderings (summary_render.h) read the same numbers.
//
//   ASSIGN_OR_RETURN(SummaryReport r, BuildSummaryReport(trace, path, options));
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "analysis/gpu_timeline.h"
#include "analysis/op_stats.h"
#include "analysis/overlap_analysis.h"
#include "analysis/step_detector.h"
#include "analysis/time_window.h"
#include "base/status.h"
#include "model/trace.h"

namespace cprof::cli {

struct SummaryOptions {
  std::string time_range;  // "A:B" relative to the trace start; empty = whole trace
  size_t top = 10;         // operators per table
};

struct SummaryReport {
  const Trace* trace = nullptr;  // not owned
  std::string path;
  std::string source_format;
  TimeWindow window;  // absolute; unbounded without --time_range
  std::map<std::string, int64_t> tracks_by_kind;
  OpStatsTable ops;  // all ops; the renderers pick the top ones
  size_t top = 10;
  std::vector<Step> steps;
  std::optional<GpuTimeline> gpu_timeline;
  std::vector<StepGpuTimeline> gpu_timeline_per_step;
  std::vector<StepTraceTime> step_trace_time;  // Ascend Overlap Analysis, empty if absent
};

// Runs the analyses. kInvalidInput for a bad --time_range.
StatusOr<SummaryReport> BuildSummaryReport(const Trace& trace, const std::string& path, const SummaryOptions& o);

}  // namespace cprof::cli
