// `cann-profiler recommend-runtime --trace T [--output runtime_adjustment.yaml] [--format yaml|json]
// [--json]`: thread counts, allocator settings, environment variables and batch/concurrency hints
// for the workload the trace came from, each with its reason. Diagnoses the trace first (the
// reasons cite the findings). Rules in analysis/diagnose/runtime_recommendation.h; the file's
// schema in report/diagnose/runtime_adjustment_yaml.h and the README.
#include <memory>

#include <fmt/format.h>

#include "analysis/diagnose/diagnose.h"
#include "analysis/diagnose/runtime_recommendation.h"
#include "cli/commands.h"
#include "model/trace.h"
#include "report/diagnose/runtime_adjustment_yaml.h"

namespace cprof::cli {
namespace {

struct RecommendRuntimeOptions {
  std::string trace;
  OutputOptions output;
};

CommandResult RunRecommendRuntime(const RecommendRuntimeOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"yaml", "json"};
  OutputOptions out = o.output;
  if (out.format.empty() && out.output.ends_with(".yml")) out.format = "yaml";
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(out, kFormats, "yaml"));
  ASSIGN_OR_RETURN(Trace trace, LoadTrace(o.trace, ctx.import));
  Diagnosis d = Diagnose(trace, DiagnoseOptions{});
  d.trace_path = o.trace;
  const RuntimeAdjustment a = RecommendRuntime(ReadRuntimeFacts(trace, d.device), d);
  const std::string text =
      format == "json" ? DumpJson(RuntimeAdjustmentToJson(a, kSchemaVersion)) : RuntimeAdjustmentToYaml(a, kSchemaVersion);
  RETURN_IF_ERROR(WriteOutput(out, text, ctx));
  if (!out.output.empty()) {
    ctx.out << fmt::format("runtime settings for {} ({} trace, {} finding{}): {} setting{}\n", o.trace,
                           DeviceKindId(d.device), d.findings.size(), d.findings.size() == 1 ? "" : "s",
                           a.settings.size(), a.settings.size() == 1 ? "" : "s");
    for (const RuntimeSetting& s : a.settings)
      ctx.out << fmt::format("  {}.{} = {}\n", RuntimeSectionId(s.section), s.name, s.value);
    for (const std::string& n : a.notes) ctx.out << "  note: " << n << "\n";
    ctx.out << "written: " << out.output << "\n";
  }
  return ExitCode::kOk;
}

}  // namespace

Command AddRecommendRuntimeCommand(CLI::App& root) {
  auto o = std::make_shared<RecommendRuntimeOptions>();
  CLI::App* cmd = root.add_subcommand("recommend-runtime",
                                      "thread, allocator, environment and batch settings from a trace, with reasons");
  cmd->add_option("trace,--trace", o->trace, "trace file or folder (any supported format); --trace may be left out")->required();
  AddOutputOptions(cmd, &o->output, "yaml or json", "yaml");
  return {cmd, [o](CommandContext& ctx) { return RunRecommendRuntime(*o, ctx); }};
}

}  // namespace cprof::cli
