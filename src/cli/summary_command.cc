// `cann-profiler summary TRACE [--json] [--time_range A:B] [--top N]`: what happened, in one
// screen: source and metadata, tracks, steps, the device time breakdown, Ascend overlap analysis,
// top operators and import stats. Output fields are documented in summary_render.h.
#include "cli/commands.h"
#include "cli/summary_render.h"
#include "cli/summary_report.h"

namespace cprof::cli {
namespace {

struct SummaryCommandOptions {
  std::string trace;
  SummaryOptions summary;
  OutputOptions output;
};

CommandResult RunSummary(const SummaryCommandOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"text", "json"};
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(o.output, kFormats, "text"));
  ASSIGN_OR_RETURN(Trace trace, LoadTrace(o.trace, ctx.import));
  ASSIGN_OR_RETURN(SummaryReport report, BuildSummaryReport(trace, o.trace, o.summary));
  std::string text = format == "json" ? DumpJson(SummaryToJson(report)) : RenderSummaryText(report);
  RETURN_IF_ERROR(WriteOutput(o.output, text, ctx));
  return ExitCode::kOk;
}

}  // namespace

Command AddSummaryCommand(CLI::App& root) {
  auto o = std::make_shared<SummaryCommandOptions>();
  CLI::App* cmd = root.add_subcommand("summary", "what happened in a trace, in one screen");
  cmd->add_option("trace", o->trace, "trace file or folder (any supported format)")->required();
  cmd->add_option("--time_range", o->summary.time_range,
                  "only this part of the trace, relative to its start: A:B with units (1s:2.5s, :300ms); "
                  "slices and steps that start inside it count");
  cmd->add_option("--top", o->summary.top, "operators per table (default 10)")->check(PositiveInteger());
  AddOutputOptions(cmd, &o->output, "text, json");
  return {cmd, [o](CommandContext& ctx) { return RunSummary(*o, ctx); }};
}

}  // namespace cprof::cli
