// `cann-profiler validate --before B --after A [--metrics M,...] [--statistical_test t-test|mann-whitney|bootstrap]
// [--alpha 0.05] [--min_effect 2%] [--fail_on_regression] --output validation_report.{md,html,json,pdf}`:
// proves (or refutes) an optimization with statistics. B and A are traces (their steps are the
// samples) or folders / comma lists of repeated runs (one value per run). Exit code 1 with
// --fail_on_regression when a metric regressed significantly. See analysis/compare/validation.h
// for the method and report/compare/validation_report.h for the output fields.
#include <algorithm>
#include <cmath>
#include <memory>

#include <fmt/core.h>

#include "analysis/compare/validation.h"
#include "cli/commands.h"
#include "cli/run_inputs.h"
#include "model/trace.h"
#include "report/compare/pdf_renderer.h"
#include "report/compare/validation_report.h"
#include "stats/metric_registry.h"

namespace cprof::cli {
namespace {

constexpr const char* kDefaultMetrics = "step_time,p50_latency,p99_latency,throughput";

struct ValidateCommandOptions {
  std::string before;
  std::string after;
  std::string metrics = kDefaultMetrics;
  std::string test = "mann-whitney";
  double alpha = 0.05;
  std::string min_effect = "2%";
  bool fail_on_regression = false;
  double items_per_step = 1;
  int resamples = 0;
  uint64_t seed = 0x5eed2024ULL;
  OutputOptions output;
};

// "2%", "2 %" or "2" (percent either way).
StatusOr<double> ParseMinEffect(std::string s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  if (!s.empty() && s.back() == '%') s.pop_back();
  try {
    size_t used = 0;
    const double v = std::stod(s, &used);
    if (used != s.size() || !(v >= 0) || !std::isfinite(v)) throw std::invalid_argument("x");
    return v;
  } catch (const std::exception&) {
    return InvalidInput("--min_effect '{}': expected a percentage such as 2% or 0.5%", s);
  }
}

StatusOr<std::vector<Trace>> LoadRuns(const std::vector<std::string>& paths, const ImportOptions& import) {
  std::vector<Trace> out;
  out.reserve(paths.size());
  for (const std::string& p : paths) {
    ASSIGN_OR_RETURN(Trace t, LoadTrace(p, import));
    out.push_back(std::move(t));
  }
  return out;
}

CommandResult RunValidate(const ValidateCommandOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"text", "md", "html", "json", "pdf"};
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(o.output, kFormats, "text"));
  if (format == "pdf" && o.output.output.empty()) return InvalidInput("PDF output needs --output FILE.pdf");

  ValidateOptions vo;
  if (!ParseTwoSampleTest(o.test, &vo.test))
    return InvalidInput("unknown --statistical_test '{}'; choose t-test, mann-whitney or bootstrap", o.test);
  vo.alpha = o.alpha;
  ASSIGN_OR_RETURN(vo.min_effect_pct, ParseMinEffect(o.min_effect));
  if (!(o.items_per_step > 0) || !std::isfinite(o.items_per_step))
    return InvalidInput("--items_per_step must be a positive number, got {}", o.items_per_step);
  vo.items_per_step = o.items_per_step;
  vo.resamples = o.resamples;
  vo.seed = o.seed;
  ASSIGN_OR_RETURN(std::vector<const MetricInfo*> metrics, MetricRegistry::Default().FindAll(o.metrics));
  for (const MetricInfo* m : metrics) {
    // A metric counted twice would also count twice in the Holm-Bonferroni correction.
    if (std::any_of(vo.metrics.begin(), vo.metrics.end(), [&](const MetricInfo& seen) { return seen.name == m->name; }))
      return InvalidInput("--metrics names '{}' twice", m->name);
    vo.metrics.push_back(*m);
  }

  ASSIGN_OR_RETURN(std::vector<std::string> before_paths, ExpandRunPaths(o.before));
  ASSIGN_OR_RETURN(std::vector<std::string> after_paths, ExpandRunPaths(o.after));
  ASSIGN_OR_RETURN(std::vector<Trace> before_traces, LoadRuns(before_paths, ctx.import));
  ASSIGN_OR_RETURN(std::vector<Trace> after_traces, LoadRuns(after_paths, ctx.import));
  RunSet before, after;
  for (size_t i = 0; i < before_traces.size(); ++i) {
    before.runs.push_back(&before_traces[i]);
    before.labels.push_back(before_paths[i]);
  }
  for (size_t i = 0; i < after_traces.size(); ++i) {
    after.runs.push_back(&after_traces[i]);
    after.labels.push_back(after_paths[i]);
  }
  ASSIGN_OR_RETURN(ValidationResult result, Validate(before, after, vo));

  if (format == "json") {
    nlohmann::ordered_json doc = NewJsonDocument("validation");
    const nlohmann::ordered_json body = ValidationJson(result);  // a named object: items() of a temporary dangles
    for (const auto& [k, v] : body.items()) doc[k] = v;
    RETURN_IF_ERROR(WriteOutput(o.output, DumpJson(doc), ctx));
  } else if (format == "html") {
    RETURN_IF_ERROR(WriteOutput(o.output, ValidationHtml(result), ctx));
  } else if (format == "pdf") {
    RETURN_IF_ERROR(RenderPdfWithChromium(ValidationHtml(result), o.output.output));
  } else {
    RETURN_IF_ERROR(WriteOutput(o.output, ValidationMarkdown(result), ctx));
  }
  if (!o.output.output.empty()) {
    ctx.err << fmt::format("validate: {} ({} metric(s), unit: {}); report written to {}\n", VerdictName(result.verdict),
                           result.metrics.size(), result.unit, o.output.output);
  }
  if (o.fail_on_regression && result.verdict == Verdict::kRegressed) return ExitCode::kVerdictFailed;
  return ExitCode::kOk;
}

}  // namespace

Command AddValidateCommand(CLI::App& root) {
  auto o = std::make_shared<ValidateCommandOptions>();
  CLI::App* cmd = root.add_subcommand("validate", "prove an optimization with statistics: before vs after");
  cmd->add_option("--before", o->before,
                  "the baseline: a trace (its steps are the samples), or a folder / comma list of repeated runs")
      ->required();
  cmd->add_option("--after", o->after, "the candidate, same forms as --before")->required();
  cmd->add_option("--metrics", o->metrics,
                  fmt::format("comma-separated metrics from `cann-profiler metrics` (default {})", kDefaultMetrics));
  cmd->add_option("--statistical_test", o->test, "t-test, mann-whitney (default) or bootstrap");
  cmd->add_option("--alpha", o->alpha, "significance level, family-wise over the metrics (default 0.05)");
  cmd->add_option("--min_effect", o->min_effect,
                  "noise threshold: smaller changes are never called (default 2%)");
  cmd->add_flag("--fail_on_regression", o->fail_on_regression, "exit with code 1 when a metric regressed significantly");
  cmd->add_option("--items_per_step", o->items_per_step, "items (samples, tokens) per step, for throughput (default 1)");
  cmd->add_option("--resamples", o->resamples, "bootstrap resamples (default, or 0: 9999, fewer for large samples)")
      ->check(NonNegativeInteger());
  cmd->add_option("--seed", o->seed, "bootstrap seed (results are reproducible for a given seed)");
  AddOutputOptions(cmd, &o->output, "text (Markdown), md, html, json, pdf");
  return {cmd, [o](CommandContext& ctx) { return RunValidate(*o, ctx); }};
}

}  // namespace cprof::cli
