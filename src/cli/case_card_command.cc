// `cann-profiler case-card --diagnosis R.yaml [--finding F1] [--solution TEXT] [--before B --after A]
// [--metric step_time] [--library DIR] [--output case.md]`: a case card (problem, root cause, fix,
// measured gain, where it applies, risks) from a diagnosis, saved into the case library
// (analysis/diagnose/case_card.h; format in report/diagnose/case_card_markdown.h). With --before
// and --after the gain is measured with validate's statistics (analysis/compare/validation.h):
// the change of the metric's statistic with its interval and Holm-adjusted p-value.
#include <algorithm>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>

#include "analysis/compare/validation.h"
#include "analysis/diagnose/case_card.h"
#include "cli/commands.h"
#include "cli/run_inputs.h"
#include "model/trace.h"
#include "report/diagnose/case_card_markdown.h"
#include "report/diagnose/case_library.h"
#include "report/diagnose/diagnosis_reader.h"

namespace cprof::cli {
namespace {

struct CaseCardOptions {
  std::string diagnosis;
  std::string solution;
  std::string finding = "F1";
  std::string before;
  std::string after;
  std::string metric = "step_time";
  std::string library;
  std::string output;
};

StatusOr<std::vector<Trace>> LoadSide(const std::string& spec, const ImportOptions& import,
                                      std::vector<std::string>* paths) {
  ASSIGN_OR_RETURN(*paths, ExpandRunPaths(spec));
  std::vector<Trace> traces;
  for (const std::string& p : *paths) {
    ASSIGN_OR_RETURN(Trace t, LoadTrace(p, import));
    traces.push_back(std::move(t));
  }
  return traces;
}

StatusOr<MeasuredGain> Measure(const CaseCardOptions& o, const ImportOptions& import) {
  ASSIGN_OR_RETURN(const MetricInfo* metric, MetricRegistry::Default().Find(o.metric));
  std::vector<std::string> before_paths, after_paths;
  ASSIGN_OR_RETURN(std::vector<Trace> before_traces, LoadSide(o.before, import, &before_paths));
  ASSIGN_OR_RETURN(std::vector<Trace> after_traces, LoadSide(o.after, import, &after_paths));
  RunSet before, after;
  for (size_t i = 0; i < before_traces.size(); ++i) before.runs.push_back(&before_traces[i]);
  for (size_t i = 0; i < after_traces.size(); ++i) after.runs.push_back(&after_traces[i]);
  before.labels = before_paths;
  after.labels = after_paths;
  ValidateOptions vo;
  vo.metrics = {*metric};
  ASSIGN_OR_RETURN(ValidationResult r, Validate(before, after, vo));
  const MetricValidation& m = r.metrics.front();
  MeasuredGain g;
  g.metric = o.metric;
  g.unit = metric->unit;
  g.before = m.comparison.before.estimate;
  g.after = m.comparison.after.estimate;
  g.change_pct = m.comparison.change_pct;
  g.ci_low_pct = m.comparison.change_ci_low_pct;
  g.ci_high_pct = m.comparison.change_ci_high_pct;
  g.p_value = m.p_adjusted;
  g.verdict = std::string(VerdictName(m.verdict));
  g.before_path = o.before;
  g.after_path = o.after;
  return g;
}

CommandResult RunCaseCard(const CaseCardOptions& o, CommandContext& ctx) {
  if (o.before.empty() != o.after.empty()) return InvalidInput("case-card: give both --before and --after, or neither");
  ASSIGN_OR_RETURN(Diagnosis d, LoadDiagnosis(o.diagnosis));
  size_t primary = 0;
  {
    const std::string& id = o.finding;
    char* end = nullptr;
    const long n = id.size() > 1 && (id[0] == 'F' || id[0] == 'f') ? std::strtol(id.c_str() + 1, &end, 10) : 0;
    // A card needs a finding: one without categories is never matched (diagnose skips it).
    if (d.findings.empty()) return InvalidInput("{}: the diagnosis has no finding to make a case of", o.diagnosis);
    if (n < 1 || *end != '\0' || static_cast<size_t>(n) > d.findings.size())
      return InvalidInput("--finding {}: {} has findings F1..F{}", id, o.diagnosis, d.findings.size());
    primary = static_cast<size_t>(n - 1);
  }
  std::optional<MeasuredGain> measured;
  if (!o.before.empty()) {
    ASSIGN_OR_RETURN(MeasuredGain g, Measure(o, ctx.import));
    measured = g;
  }
  const CaseCard card = BuildCaseCard(d, o.solution, measured, primary);
  const std::string library = o.library.empty() ? DefaultCaseLibrary() : o.library;
  ASSIGN_OR_RETURN(std::string saved, SaveCaseCard(card, library, kSchemaVersion));
  if (!o.output.empty()) {
    OutputOptions out;
    out.output = o.output;
    RETURN_IF_ERROR(WriteOutput(out, CaseCardToMarkdown(card, kSchemaVersion), ctx));
  }
  ctx.out << fmt::format("case {}: {}\n  categories: {}; device {}; fingerprint {:016x}\n", card.id, card.title,
                         fmt::join(card.categories, ", "), card.device, card.fingerprint);
  if (measured)
    ctx.out << fmt::format("  measured {}: {:+.1f}% [{:+.1f}%, {:+.1f}%], p = {:.3g} ({})\n", measured->metric,
                           measured->change_pct, measured->ci_low_pct, measured->ci_high_pct, measured->p_value,
                           measured->verdict);
  ctx.out << "  saved: " << saved << (o.output.empty() ? "" : "\n  written: " + o.output) << "\n";
  return ExitCode::kOk;
}

}  // namespace

Command AddCaseCardCommand(CLI::App& root) {
  auto o = std::make_shared<CaseCardOptions>();
  CLI::App* cmd = root.add_subcommand("case-card", "record a solved problem as a case card in the case library");
  cmd->add_option("--diagnosis", o->diagnosis, "the diagnose report of the problem (YAML or JSON)")->required();
  cmd->add_option("--finding", o->finding, "the finding the case is about, by its report id (default F1)");
  cmd->add_option("--solution", o->solution, "what was done to fix it (default: the top finding's suggestions)");
  cmd->add_option("--before", o->before, "trace(s) before the fix: a trace, a folder or a comma list of runs");
  cmd->add_option("--after", o->after, "trace(s) after the fix, same forms");
  cmd->add_option("--metric", o->metric, "the metric the measured gain is stated in (default step_time)");
  cmd->add_option("--library", o->library, "case library folder (default $CPROF_CASE_LIBRARY or ~/.cann-profiler/cases)");
  cmd->add_option("--output,-o", o->output, "also write the card here (Markdown)");
  return {cmd, [o](CommandContext& ctx) { return RunCaseCard(*o, ctx); }};
}

}  // namespace cprof::cli
