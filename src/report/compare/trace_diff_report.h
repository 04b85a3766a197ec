// Renders a TraceDiff (analysis/compare/trace_diff.h) as JSON, Markdown or HTML.
//
//   nlohmann::ordered_json body = TraceDiffJson(diff, labels);   // the CLI adds schema_version
//   std::string md = TraceDiffMarkdown(diff, labels);
//
// JSON: `baseline`/`target` summaries (steps with start_ns/dur_ns, gpu breakdown in ns),
// `step_time` (the per-step comparison, ms), `categories`, `top_regressions`,
// `top_improvements` and `ops` (every aligned op; times in integer ns, fields ending _ns).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/compare/trace_diff.h"

namespace cprof {

struct DiffLabels {
  std::string baseline;  // e.g. the file name, plus the window when one was given
  std::string target;
  size_t max_ops = 200;  // rows of the full op table in Markdown/HTML (JSON has all)
};

nlohmann::ordered_json TraceDiffJson(const TraceDiff& diff, const DiffLabels& labels);
std::string TraceDiffMarkdown(const TraceDiff& diff, const DiffLabels& labels);
std::string TraceDiffHtml(const TraceDiff& diff, const DiffLabels& labels);

}  // namespace cprof
