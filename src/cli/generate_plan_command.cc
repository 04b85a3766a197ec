// `cann-profiler generate-plan --diagnosis R.yaml --priority latency_first|throughput_first|memory_first
// --risk_tolerance low|medium|high [--min_confidence 0.3] --output optimization_plan.md [--format md|json]
// [--json]`: the diagnosis as ordered steps, each with the change, the expected gain range, the
// risk, dependencies and the validate command (analysis/diagnose/plan.h has the method,
// report/diagnose/plan_report.h the output). With --output, stdout gets the steps in a few lines.
#include <memory>

#include <fmt/format.h>

#include "analysis/diagnose/plan.h"
#include "cli/commands.h"
#include "report/diagnose/diagnosis_reader.h"
#include "report/diagnose/plan_report.h"

namespace cprof::cli {
namespace {

struct GeneratePlanOptions {
  std::string diagnosis;
  std::string priority = "throughput_first";
  std::string risk_tolerance = "medium";
  double min_confidence = 0.3;
  OutputOptions output;
};

CommandResult RunGeneratePlan(const GeneratePlanOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"md", "json"};
  OutputOptions out = o.output;
  if (out.format == "markdown") out.format = "md";
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(out, kFormats, "md"));
  PlanOptions po;
  std::optional<PlanPriority> priority = PlanPriorityFromId(o.priority);
  if (!priority)
    return InvalidInput("--priority {}: unknown; one of latency_first, throughput_first, memory_first", o.priority);
  po.priority = *priority;
  std::optional<PlanRisk> risk = PlanRiskFromId(o.risk_tolerance);
  if (!risk) return InvalidInput("--risk_tolerance {}: unknown; one of low, medium, high", o.risk_tolerance);
  po.risk_tolerance = *risk;
  if (!(o.min_confidence >= 0 && o.min_confidence <= 1))
    return InvalidInput("--min_confidence {}: must be in [0, 1]", o.min_confidence);
  po.min_confidence = o.min_confidence;
  po.diagnosis_path = o.diagnosis;
  ASSIGN_OR_RETURN(Diagnosis d, LoadDiagnosis(o.diagnosis));
  const Plan plan = BuildPlan(d, po);
  const std::string text = format == "json" ? DumpJson(PlanToJson(plan, kSchemaVersion)) : PlanToMarkdown(plan);
  RETURN_IF_ERROR(WriteOutput(out, text, ctx));
  if (!out.output.empty()) {
    ctx.out << fmt::format("plan for {} ({}, risk <= {}): {} step{}, {} deferred\n", o.diagnosis, o.priority,
                           o.risk_tolerance, plan.steps.size(), plan.steps.size() == 1 ? "" : "s", plan.deferred.size());
    for (const PlanStep& s : plan.steps)
      ctx.out << fmt::format("  {}. [{}] {} ({:.1f}-{:.1f}% of step, risk {})\n", s.number, CategoryId(s.category),
                             s.title, s.gain_low_pct, s.gain_high_pct, PlanRiskId(s.risk));
    ctx.out << "plan: " << out.output << "\n";
  }
  return ExitCode::kOk;
}

}  // namespace

Command AddGeneratePlanCommand(CLI::App& root) {
  auto o = std::make_shared<GeneratePlanOptions>();
  CLI::App* cmd = root.add_subcommand("generate-plan", "an ordered optimization plan from a diagnosis report");
  cmd->add_option("--diagnosis", o->diagnosis, "the diagnose report (YAML or JSON)")->required();
  cmd->add_option("--priority", o->priority, "latency_first, throughput_first (default) or memory_first");
  cmd->add_option("--risk_tolerance", o->risk_tolerance,
                  "low (settings only), medium (default: also layout, pipeline, API swaps) or high (also fusion, "
                  "rewrites)");
  cmd->add_option("--min_confidence", o->min_confidence, "findings below this are not planned (default 0.3)");
  AddOutputOptions(cmd, &o->output, "md or json", "md");
  return {cmd, [o](CommandContext& ctx) { return RunGeneratePlan(*o, ctx); }};
}

}  // namespace cprof::cli
