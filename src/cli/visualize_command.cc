// `cann-profiler visualize --trace T [--view timeline,flamegraph,heatmap,summary,ops,memory]
// [--diagnosis R.yaml] [--baseline B] [--time_range A:B] --output performance_map.html`: one
// self-contained HTML page. With `--view flamegraph --format speedscope|folded` it exports the
// flame graph instead (speedscope JSON, or folded stacks for flamegraph.pl / inferno).
// Output is written atomically.
#include <fmt/format.h>

#include <array>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/time_window.h"
#include "base/time_units.h"
#include "cli/commands.h"
#include "cli/time_range_option.h"
#include "export/flame/flame_tree.h"
#include "export/flame/folded_stacks.h"
#include "export/flame/speedscope_writer.h"
#include "model/trace.h"
#include "report/diagnose/diagnosis_json.h"
#include "report/diagnose/diagnosis_reader.h"
#include "report/visualize/map_finding.h"
#include "report/visualize/performance_map.h"

namespace cprof::cli {
namespace {

struct VisualizeOptions {
  std::string trace;
  std::string views;
  std::string diagnosis;
  std::string baseline;
  std::string time_range;
  std::string title;
  std::string flame_source = "auto";
  OutputOptions output;
};

std::vector<std::string> SplitViews(const std::string& text) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string v = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    v.erase(0, v.find_first_not_of(' '));
    v.erase(v.find_last_not_of(' ') + 1);
    if (!v.empty()) out.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return out;
}

// What --flame_source `source` draws from, for the warning on an empty export; empty for an
// unknown source.
std::string_view FlameSourceWhat(std::string_view source) {
  static constexpr std::pair<std::string_view, std::string_view> kSources[] = {
      {"auto", "CPU samples, host or device slices"}, {"samples", "CPU samples"}, {"host", "host slices"},
      {"device", "device slices"}, {"all", "slices"}};
  for (auto [name, what] : kSources)
    if (name == source) return what;
  return {};
}

// The flame graph export: folded stacks or speedscope JSON.
StatusOr<std::string> ExportFlame(const Trace& trace, const VisualizeOptions& o, const std::string& format,
                                  const TimeWindow& window) {
  FlameOptions fo;
  fo.start_ns = window.start_ns;
  fo.end_ns = window.end_ns;
  fo.by_track = true;
  const std::string& source = o.flame_source;
  if (format == "speedscope") {
    fo.tracks = source == "host" ? FlameTracks::kHost : source == "device" ? FlameTracks::kDevice : FlameTracks::kAll;
    return SpeedscopeJson(trace, fo, o.title.empty() ? o.trace : o.title);
  }
  if (source == "auto") {
    FlameTree samples = BuildSampleFlameTree(trace, fo);
    if (samples.value[FlameTree::kRoot] > 0) return FoldedStacks(samples);
    fo.tracks = FlameTracks::kHost;
    FlameTree host = BuildSliceFlameTree(trace, fo);
    if (host.value[FlameTree::kRoot] > 0) return FoldedStacks(host);
    fo.tracks = FlameTracks::kDevice;
    return FoldedStacks(BuildSliceFlameTree(trace, fo));
  }
  if (source == "samples") return FoldedStacks(BuildSampleFlameTree(trace, fo));
  fo.tracks = source == "host" ? FlameTracks::kHost : source == "device" ? FlameTracks::kDevice : FlameTracks::kAll;
  return FoldedStacks(BuildSliceFlameTree(trace, fo));
}

CommandResult RunVisualize(const VisualizeOptions& o, CommandContext& ctx) {
  static constexpr std::array<std::string_view, 4> kFormats = {"html", "speedscope", "folded", "json"};
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(o.output, kFormats, "html"));
  if (format == "json") format = "speedscope";  // a .json flame graph is speedscope's format
  std::vector<std::string> views = SplitViews(o.views);
  if (format != "html" && !(views.empty() || (views.size() == 1 && views[0] == "flamegraph"))) {
    return InvalidInput("--format {} exports the flame graph: use it with --view flamegraph", format);
  }
  if (FlameSourceWhat(o.flame_source).empty()) {
    return InvalidInput("unknown --flame_source '{}'; sources: auto, samples, host, device, all", o.flame_source);
  }
  ASSIGN_OR_RETURN(std::optional<TimeRange> range, ParseTimeRangeOption(o.time_range));
  // Read the small inputs first, so their errors come before a long import.
  std::vector<MapFinding> findings;
  if (!o.diagnosis.empty()) {
    ASSIGN_OR_RETURN(findings, LoadFindingsFile(o.diagnosis));
  }
  ASSIGN_OR_RETURN(Trace trace, LoadTrace(o.trace, ctx.import));
  ASSIGN_OR_RETURN(TimeWindow window, WindowInTrace(trace, range, o.time_range));
  if (!o.diagnosis.empty()) {
    // Findings of another trace would point at events this one does not have: say so.
    // (A findings file without the report's header has no hash to compare.)
    StatusOr<Diagnosis> d = LoadDiagnosis(o.diagnosis);
    const uint64_t theirs = d.ok() ? d->content_hash : 0;
    if (theirs != 0) {
      const uint64_t mine = DiagnosisContext(trace, DiagnoseOptions{}).content_hash();
      if (theirs != mine)
        ctx.err << fmt::format("cann-profiler: warning: {} diagnosed another trace (content_hash {}; {} has {}): its "
                               "evidence events may be missing or others\n",
                               o.diagnosis, FormatContentHash(theirs), o.trace, FormatContentHash(mine));
    }
  }

  if (format != "html") {
    ASSIGN_OR_RETURN(std::string text, ExportFlame(trace, o, format, window));
    RETURN_IF_ERROR(WriteOutput(o.output, text, ctx));
    if (text.empty()) {  // as trace's "no trigger fired": the run succeeded, but say why nothing came out
      ctx.err << fmt::format("cann-profiler: warning: empty flame graph: {} has no {}{} (--flame_source {})\n",
                             o.trace, FlameSourceWhat(o.flame_source), o.time_range.empty() ? "" : " in --time_range",
                             o.flame_source);
    }
    if (!o.output.output.empty()) ctx.out << fmt::format("wrote {} ({}, {} bytes)\n", o.output.output, format, text.size());
    return ExitCode::kOk;
  }

  std::optional<Trace> baseline;
  PerformanceMapOptions po;
  po.views = views;
  po.time_range = range;
  po.title = o.title;
  po.findings = std::move(findings);
  po.findings_source = o.diagnosis;
  if (!o.baseline.empty()) {
    ASSIGN_OR_RETURN(Trace b, LoadTrace(o.baseline, ctx.import));
    baseline = std::move(b);
    po.baseline = &*baseline;
    po.baseline_title = o.baseline;
  }
  PerformanceMapStats stats;
  ASSIGN_OR_RETURN(std::string html, RenderPerformanceMap(trace, po, &stats));
  RETURN_IF_ERROR(WriteOutput(o.output, html, ctx));
  if (!o.output.output.empty()) {
    std::string located = stats.findings ? fmt::format(", {} findings ({} evidence events located)", stats.findings,
                                                       stats.findings_located)
                                         : "";
    ctx.out << fmt::format("wrote {} ({:.1f} MB: {} slices, data {:.1f} MB){}\n", o.output.output,
                           stats.html_bytes / 1e6, stats.slices, stats.data_bytes / 1e6, located);
  }
  return ExitCode::kOk;
}

}  // namespace

Command AddVisualizeCommand(CLI::App& root) {
  auto o = std::make_shared<VisualizeOptions>();
  CLI::App* cmd = root.add_subcommand(
      "visualize", "one self-contained HTML page: timeline, flame graph, heatmap, findings (works offline)");
  cmd->add_option("trace,--trace", o->trace, "trace to show (any supported format); --trace may be left out")->required();
  cmd->add_option("--view", o->views,
                  "comma-separated views: timeline, flamegraph, heatmap, summary, ops, memory (default: all)");
  cmd->add_option("--diagnosis", o->diagnosis, "diagnose report (YAML or JSON) whose findings the page shows");
  cmd->add_option("--baseline", o->baseline, "a baseline trace: the flame graph shows the difference against it");
  cmd->add_option("--time_range", o->time_range, "A:B relative to the trace start, with units (e.g. 1.5s:2s)");
  cmd->add_option("--title", o->title, "page title (default: the trace's path)");
  cmd->add_option("--flame_source", o->flame_source,
                  "flame graph export: auto (samples, else host ops, else device), samples, host, device, all");
  cmd->add_option("--format", o->output.format,
                  "html (default); speedscope (or json, or an output ending .json) or folded export the flame graph alone "
                  "(no --view, or --view flamegraph)");
  cmd->add_option("--output,-o", o->output.output, "file to write atomically (default: stdout)");
  return {cmd, [o](CommandContext& ctx) { return RunVisualize(*o, ctx); }};
}

}  // namespace cprof::cli
