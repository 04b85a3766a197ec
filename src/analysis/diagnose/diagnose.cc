// Runs every rule and ranks the findings (diagnose.h).
#include "analysis/diagnose/diagnose.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "analysis/diagnose/category_changes.h"
#include "analysis/diagnose/rules.h"
#include "base/torch_version.h"
#include "base/time_units.h"

namespace cprof {

Diagnosis Diagnose(const Trace& trace, const DiagnoseOptions& options) {
  DiagnosisContext ctx(trace, options);
  Diagnosis d;
  for (const std::unique_ptr<Rule>& rule : AllRules()) {
    ++d.rules_run;
    const size_t before = d.findings.size();
    rule->Run(ctx, d.findings);
    for (size_t i = before; i < d.findings.size(); ++i) d.findings[i].rule = std::string(rule->name());
  }
  std::erase_if(d.findings, [](const Finding& f) { return !(f.confidence > 0); });
  std::stable_sort(d.findings.begin(), d.findings.end(), [](const Finding& a, const Finding& b) {
    if (a.score() != b.score()) return a.score() > b.score();
    return CategoryId(a.category) < CategoryId(b.category);
  });
  d.content_hash = ctx.content_hash();
  d.device = ctx.device_kind();
  d.problem = options.problem;
  d.threshold_text = options.threshold_text;
  d.source_format = trace.MetadataText(meta::kSourceFormat);
  // A version, not the collector's "?" for a torch without __version__.
  if (std::string v = trace.MetadataText(meta::kTorchVersion); TorchMajorVersion(v)) d.torch_version = std::move(v);
  for (Finding& f : d.findings) NoteTorchCompileNeeds(f.suggestions, d.torch_version);
  d.span_ns = ctx.span_ns();
  const std::vector<Step>& steps = ctx.steps();
  d.step_count = static_cast<int64_t>(steps.size());
  if (!steps.empty()) {
    int64_t sum = 0;
    for (const Step& s : steps) sum += s.dur_ns;
    d.step_mean_ns = sum / static_cast<int64_t>(steps.size());
    // A --threshold no step exceeds leaves the tail analysis nothing to compare: say so, or the
    // report cannot be told from "no tail problem".
    // Likewise one every step exceeds: no fast step to compare the slow ones with.
    int64_t slowest = 0, fastest = std::numeric_limits<int64_t>::max();
    for (const Step& s : steps) {
      slowest = std::max(slowest, s.dur_ns);
      fastest = std::min(fastest, s.dur_ns);
    }
    if (options.slow_threshold_ns && slowest <= *options.slow_threshold_ns) {
      d.notes.push_back(fmt::format("--threshold {}: no step is slower (the slowest of {} takes {}); nothing to "
                                    "compare the fast steps with",
                                    options.threshold_text, steps.size(), FormatDuration(slowest)));
    } else if (options.slow_threshold_ns && fastest > *options.slow_threshold_ns) {
      d.notes.push_back(fmt::format("--threshold {}: every step is slower (the fastest of {} takes {}); no fast "
                                    "step to compare the slow ones with",
                                    options.threshold_text, steps.size(), FormatDuration(fastest)));
    }
  }
  return d;
}

}  // namespace cprof
