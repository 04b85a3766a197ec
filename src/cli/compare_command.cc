// `cann-profiler compare --baseline B --target T [--output diff.md|html|json] [--time_range A:B[,C:D]]
// [--op_map FILE]`: the operator-level difference between two traces, or two windows of one:
// counts, total and self time, new and vanished ops, the time by category, per-step
// significance, and the top regressions and improvements with their evidence
// (analysis/compare/trace_diff.h, report/compare/trace_diff_report.h).
#include <fstream>
#include <memory>
#include <sstream>

#include <fmt/core.h>

#include "analysis/compare/op_map.h"
#include "analysis/compare/trace_diff.h"
#include "cli/commands.h"
#include "cli/time_range_option.h"
#include "model/trace.h"
#include "report/compare/pdf_renderer.h"
#include "report/compare/trace_diff_report.h"

namespace cprof::cli {
namespace {

struct CompareCommandOptions {
  std::string baseline;
  std::string target;
  std::string time_range;           // "A:B" for both, or "A:B,C:D" for baseline and target
  std::string baseline_time_range;  // overrides
  std::string target_time_range;
  std::string op_map;
  size_t top = 10;
  double alpha = 0.05;
  OutputOptions output;
};

// One side's window: its text, and the flag it came from, as the user typed it.
struct SideRange {
  std::string text;
  std::string flag = "--time_range";
  std::optional<TimeRange> range;
};

std::string Label(const std::string& path, const std::string& range) {
  return range.empty() ? path : fmt::format("{} [{}]", path, range);
}

CommandResult RunCompare(const CompareCommandOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"text", "md", "html", "json", "pdf"};
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(o.output, kFormats, "text"));
  if (format == "pdf" && o.output.output.empty()) return InvalidInput("PDF output needs --output FILE.pdf");

  SideRange base_range{.text = o.time_range}, target_range{.text = o.time_range};
  if (size_t comma = o.time_range.find(','); comma != std::string::npos) {
    base_range = {.text = o.time_range.substr(0, comma), .flag = "--time_range (its baseline part)"};
    target_range = {.text = o.time_range.substr(comma + 1), .flag = "--time_range (its target part)"};
  }
  if (!o.baseline_time_range.empty()) base_range = {.text = o.baseline_time_range, .flag = "--baseline_time_range"};
  if (!o.target_time_range.empty()) target_range = {.text = o.target_time_range, .flag = "--target_time_range"};
  // Before the imports, so a typo fails at once.
  ASSIGN_OR_RETURN(base_range.range, ParseTimeRangeOption(base_range.text, base_range.flag));
  ASSIGN_OR_RETURN(target_range.range, ParseTimeRangeOption(target_range.text, target_range.flag));

  OpMap map;
  if (!o.op_map.empty()) {
    std::ifstream in(o.op_map, std::ios::binary);
    if (!in) return NotFound("--op_map {}: cannot open the file", o.op_map);
    std::stringstream text;
    text << in.rdbuf();
    ASSIGN_OR_RETURN(map, OpMap::Parse(text.str(), o.op_map));
  }

  ASSIGN_OR_RETURN(Trace baseline, LoadTrace(o.baseline, ctx.import));
  std::optional<Trace> target_storage;
  const Trace* target = &baseline;
  if (o.target != o.baseline) {
    ASSIGN_OR_RETURN(Trace t, LoadTrace(o.target, ctx.import));
    target_storage = std::move(t);
    target = &*target_storage;
  }
  TraceDiffOptions opt;
  ASSIGN_OR_RETURN(opt.baseline_window, WindowInTrace(baseline, base_range.range, base_range.text, base_range.flag));
  ASSIGN_OR_RETURN(opt.target_window, WindowInTrace(*target, target_range.range, target_range.text, target_range.flag));
  opt.op_map = o.op_map.empty() ? nullptr : &map;
  opt.top_n = o.top;
  opt.alpha = o.alpha;
  if (!(opt.alpha > 0 && opt.alpha < 1)) return InvalidInput("--alpha must be in (0, 1), got {}", o.alpha);
  const TraceDiff diff = DiffTraces(baseline, *target, opt);
  const DiffLabels labels{Label(o.baseline, base_range.text), Label(o.target, target_range.text)};

  if (format == "json") {
    nlohmann::ordered_json doc = NewJsonDocument("trace_diff");
    const nlohmann::ordered_json body = TraceDiffJson(diff, labels);  // a named object: items() of a temporary dangles
    for (const auto& [k, v] : body.items()) doc[k] = v;
    RETURN_IF_ERROR(WriteOutput(o.output, DumpJson(doc), ctx));
  } else if (format == "html") {
    RETURN_IF_ERROR(WriteOutput(o.output, TraceDiffHtml(diff, labels), ctx));
  } else if (format == "pdf") {
    RETURN_IF_ERROR(RenderPdfWithChromium(TraceDiffHtml(diff, labels), o.output.output));
  } else {
    RETURN_IF_ERROR(WriteOutput(o.output, TraceDiffMarkdown(diff, labels), ctx));
  }
  return ExitCode::kOk;
}

}  // namespace

Command AddCompareCommand(CLI::App& root) {
  auto o = std::make_shared<CompareCommandOptions>();
  CLI::App* cmd = root.add_subcommand("compare", "operator-level difference between two traces (or two windows)");
  cmd->add_option("--baseline", o->baseline, "the reference trace")->required();
  cmd->add_option("--target", o->target, "the trace to compare with it (may be the same file with other windows)")
      ->required();
  cmd->add_option("--time_range", o->time_range,
                  "window relative to each trace's start: A:B for both sides, or A:B,C:D for baseline and target");
  cmd->add_option("--baseline_time_range", o->baseline_time_range, "window of the baseline (overrides --time_range)");
  cmd->add_option("--target_time_range", o->target_time_range, "window of the target (overrides --time_range)");
  cmd->add_option("--op_map", o->op_map, "rules mapping op names across hardware: lines 'PATTERN => NAME'");
  cmd->add_option("--top", o->top, "regressions and improvements to list (default 10)")->check(PositiveInteger());
  cmd->add_option(
      "--alpha", o->alpha,
      "significance level for per-op tests, Benjamini-Hochberg-adjusted across ops (default 0.05)");
  AddOutputOptions(cmd, &o->output, "text (Markdown), md, html, json, pdf");
  return {cmd, [o](CommandContext& ctx) { return RunCompare(*o, ctx); }};
}

}  // namespace cprof::cli
