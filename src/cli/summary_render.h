// Renders a SummaryReport as text for the terminal or as one JSON object for scripts.
//
// JSON fields (schema_version 1): schema_version, kind ("summary"), path, source_format,
// metadata, time_span {start_ns, end_ns, dur_ns}, window (with --time_range), tracks {total,
// by_kind}, top_ops {cpu, device} each {by_self, by_total}: [{name, count, total_ns, self_ns,
// mean_ns, p50_ns, p99_ns, min_ns, max_ns}], steps [{id, start_ns, dur_ns, name, source}],
// step_stats, gpu_timeline, gpu_timeline_per_step, step_trace_time, import_stats.
// Times are integer ns in fields ending `_ns`, except `gpu_timeline` (and its per-step rows),
// which reproduces TraceLens' gpu_timeline table: computation_time, exposed_comm_time,
// exposed_memcpy_time, busy_time, idle_time, total_time, total_comm_time, total_memcpy_time
// in milliseconds (floating point), TraceLens' names and units. gpu_timeline is null for a trace
// without device work.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "cli/summary_report.h"

namespace cprof::cli {

nlohmann::ordered_json SummaryToJson(const SummaryReport& r);
std::string RenderSummaryText(const SummaryReport& r);

}  // namespace cprof::cli
