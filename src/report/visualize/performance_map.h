// The performance map: one self-contained HTML page (timeline, flame graph, heatmap, summary,
// operators, memory) with the trace embedded in a compact encoding. It works offline, from
// disk, and makes no network request (its Content-Security-Policy forbids them).
//
//   PerformanceMapOptions o;
//   o.views = {"timeline", "flamegraph", "heatmap"};
//   ASSIGN_OR_RETURN(std::string html, RenderPerformanceMap(trace, o));
//   RETURN_IF_ERROR(WriteFileAtomically("performance_map.html", html));
//
// Every string from the trace is data: it travels base64-encoded and the page sets it as text,
// never as markup.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/time_units.h"
#include "model/trace.h"
#include "report/visualize/map_finding.h"

namespace cprof {

// The views a page can have, in tab order.
const std::vector<std::string>& PerformanceMapViews();

struct PerformanceMapOptions {
  std::vector<std::string> views;  // empty: all of them
  std::optional<TimeRange> time_range;  // relative to the trace's start
  std::string title;                    // shown in the page header; default: the trace's source path
  std::vector<MapFinding> findings;
  std::string findings_source;          // where the findings came from (shown on the page)
  const Trace* baseline = nullptr;      // for the differential flame graph
  std::string baseline_title;
  size_t top_ops = 200;                 // rows per operator table
};

// Sizes of what went into the page, for the CLI's one-line summary and the benchmark.
struct PerformanceMapStats {
  size_t slices = 0;
  size_t raw_bytes = 0;      // the data block before gzip
  size_t data_bytes = 0;     // the data block as embedded (gzip + base64)
  size_t html_bytes = 0;
  size_t findings = 0;
  size_t findings_located = 0;  // evidence items found in the trace
};

// kInvalidInput for an unknown view or an empty time range; kUnavailable if the binary was
// built without the front end.
StatusOr<std::string> RenderPerformanceMap(const Trace& trace, const PerformanceMapOptions& options,
                                           PerformanceMapStats* stats = nullptr);

}  // namespace cprof
