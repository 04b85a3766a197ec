// `cann-profiler diagnose --trace T [--problem P] [--threshold "p99>2.0s"] [--time_range A:B]
// [--output root_cause_report.yaml] [--format yaml|json|md] [--json]`: root causes, ranked by
// saving x confidence, each with evidence, cost, estimated saving and suggestions. The report's
// schema is in report/diagnose/diagnosis_json.h and the README's "diagnose" section. With
// --output, stdout gets a short summary of the top findings.
#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "analysis/diagnose/diagnose.h"
#include "base/time_units.h"
#include "cli/commands.h"
#include "cli/time_range_option.h"
#include "report/diagnose/case_library.h"
#include "report/diagnose/diagnosis_json.h"
#include "report/diagnose/diagnosis_markdown.h"
#include "report/diagnose/diagnosis_yaml.h"

namespace cprof::cli {
namespace {

struct DiagnoseCliOptions {
  std::string trace;
  std::string problem;
  std::string threshold;
  std::string time_range;
  std::string case_library;
  OutputOptions output;
};

// "p99>2.0s", "step>300ms", ">2s" or "2s": steps above the duration are slow.
StatusOr<int64_t> ParseThreshold(const std::string& text) {
  static constexpr std::string_view kStats[] = {"p50", "p90", "p95", "p99", "p999", "max", "mean", "step", "step_time",
                                                "latency"};
  std::string_view t = text;
  std::string_view duration = t;
  if (size_t gt = t.find('>'); gt != std::string_view::npos) {
    std::string stat;
    for (char c : t.substr(0, gt))
      if (!std::isspace(static_cast<unsigned char>(c))) stat += static_cast<char>(std::tolower(c));
    duration = t.substr(gt + 1);
    if (!duration.empty() && duration.front() == '=') duration.remove_prefix(1);
    if (!stat.empty() && std::find(std::begin(kStats), std::end(kStats), stat) == std::end(kStats))
      return InvalidInput("--threshold {}: unknown statistic '{}'; available: {}", text, stat, fmt::join(kStats, ", "));
  }
  while (!duration.empty() && std::isspace(static_cast<unsigned char>(duration.front()))) duration.remove_prefix(1);
  StatusOr<TimeNs> ns = ParseDuration(duration);
  if (!ns.ok()) return ns.status().WithContext("--threshold " + text);
  if (*ns <= 0) return InvalidInput("--threshold {}: the duration must be positive", text);
  return static_cast<int64_t>(*ns);
}

std::string HumanSummary(const Diagnosis& d, const std::string& written_to) {
  std::string s = fmt::format("diagnosed {} ({} trace, {} steps): {} finding{}", d.trace_path, DeviceKindId(d.device),
                              d.step_count, d.findings.size(), d.findings.size() == 1 ? "" : "s");
  s += d.findings.empty() ? "\n" : ", ranked by saving x confidence\n";
  for (size_t i = 0; i < d.findings.size() && i < 5; ++i) {
    const Finding& f = d.findings[i];
    s += fmt::format("  {}. [{}] {} (confidence {:.2f}, saving {})\n", i + 1, CategoryId(f.category), f.title,
                     f.confidence, HumanDuration(f.saving_ns));
  }
  if (d.findings.size() > 5) s += fmt::format("  ... {} more in the report\n", d.findings.size() - 5);
  s += "report: " + written_to + "\n";
  return s;
}

CommandResult RunDiagnose(const DiagnoseCliOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"yaml", "json", "md"};
  OutputOptions out = o.output;
  if (out.format == "markdown") out.format = "md";
  if (out.format.empty() && !out.output.empty()) {  // .yml and .markdown name the same formats
    const std::string& p = out.output;
    if (p.ends_with(".yml")) out.format = "yaml";
    if (p.ends_with(".markdown")) out.format = "md";
  }
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(out, kFormats, "yaml"));
  DiagnoseOptions options;
  if (!o.problem.empty()) {
    std::optional<Problem> p = ProblemFromId(o.problem);
    if (!p) return InvalidInput("--problem {}: unknown; one of none, high_p99_latency, low_throughput, high_memory", o.problem);
    options.problem = *p;
  }
  if (!o.threshold.empty()) {
    ASSIGN_OR_RETURN(options.slow_threshold_ns, ParseThreshold(o.threshold));
    options.threshold_text = o.threshold;
  }
  ASSIGN_OR_RETURN(std::optional<TimeRange> range, ParseTimeRangeOption(o.time_range));
  ASSIGN_OR_RETURN(Trace trace, LoadTrace(o.trace, ctx.import));
  ASSIGN_OR_RETURN(options.window, WindowInTrace(trace, range, o.time_range));
  Diagnosis d = Diagnose(trace, options);
  d.trace_path = o.trace;
  if (!o.case_library.empty()) RETURN_IF_ERROR(CiteSimilarCases(o.case_library, &d));  // case_library.h
  std::string text = format == "json" ? DumpJson(DiagnosisToJson(d, kSchemaVersion))
                     : format == "md" ? DiagnosisToMarkdown(d)
                                      : DiagnosisToYaml(d, kSchemaVersion);
  RETURN_IF_ERROR(WriteOutput(out, text, ctx));
  if (!out.output.empty()) ctx.out << HumanSummary(d, out.output);
  return ExitCode::kOk;
}

}  // namespace

Command AddDiagnoseCommand(CLI::App& root) {
  auto o = std::make_shared<DiagnoseCliOptions>();
  CLI::App* cmd = root.add_subcommand("diagnose", "root causes with evidence, confidence and estimated savings");
  cmd->add_option("trace,--trace", o->trace, "trace file or folder (any supported format); --trace may be left out")->required();
  cmd->add_option("--problem", o->problem,
                  "the symptom to explain: high_p99_latency (slow steps are compared with fast ones), "
                  "low_throughput, high_memory");
  cmd->add_option("--threshold", o->threshold,
                  "steps above this are slow, e.g. \"p99>2.0s\" or \"step>300ms\" (default: above the p90)");
  cmd->add_option("--time_range", o->time_range,
                  "only this part of the trace, relative to its start: A:B with units (1s:2.5s, :300ms)");
  cmd->add_option("--case_library", o->case_library, "cite similar past cases from this case-card folder");
  AddOutputOptions(cmd, &o->output, "yaml, json, md", "yaml");
  return {cmd, [o](CommandContext& ctx) { return RunDiagnose(*o, ctx); }};
}

}  // namespace cprof::cli
