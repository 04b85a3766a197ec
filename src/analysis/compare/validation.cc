// Validate: samples from runs, one comparison per metric, Holm across metrics, verdicts.
#include "analysis/compare/validation.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "analysis/compare/run_metrics.h"
#include "analysis/step_detector.h"
#include "stats/multiple_testing.h"

namespace cprof {
namespace {

struct SideSamples {
  std::vector<double> values;
  std::vector<int64_t> ids;
};

StatusOr<SideSamples> Collect(const RunSet& side, const std::vector<std::vector<Step>>& steps, const MetricInfo& m,
                              const RunMetricOptions& ro, bool per_run) {
  SideSamples out;
  for (size_t i = 0; i < side.runs.size(); ++i) {
    const Trace& t = *side.runs[i];
    if (per_run) {
      StatusOr<double> v = RunValue(t, steps[i], m, ro);
      if (!v.ok()) return v.status().WithContext(side.labels[i]);
      out.values.push_back(*v);
      out.ids.push_back(static_cast<int64_t>(i));
    } else {
      StatusOr<std::vector<double>> v = StepValues(t, steps[i], m, ro);
      if (!v.ok()) return v.status().WithContext(side.labels[i]);
      out.values = std::move(*v);
      for (const Step& s : steps[i]) out.ids.push_back(s.id);
      out.ids.resize(out.values.size());
    }
  }
  return out;
}

int ResamplesFor(const ValidateOptions& o, size_t n) {
  if (o.resamples > 0) return o.resamples;
  // Keep one bootstrap under ~2e7 draws: 9999 resamples up to 2,000 values, then fewer, never below 2,000.
  return static_cast<int>(std::clamp<size_t>(20'000'000 / std::max<size_t>(n, 1), 2000, 9999));
}

}  // namespace

std::string_view VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kImproved: return "improved";
    case Verdict::kRegressed: return "regressed";
    case Verdict::kUnchanged: return "unchanged";
  }
  return "?";
}

double Lag1Autocorrelation(const std::vector<double>& v) {
  if (v.size() < 3) return 0;
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double num = 0, den = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    den += (v[i] - mean) * (v[i] - mean);
    if (i + 1 < v.size()) num += (v[i] - mean) * (v[i + 1] - mean);
  }
  return den > 0 ? num / den : 0;
}

StatusOr<ValidationResult> Validate(const RunSet& before, const RunSet& after, const ValidateOptions& options) {
  if (before.runs.empty() || after.runs.empty()) return InvalidInput("validate needs at least one run on each side");
  if (options.metrics.empty()) return InvalidInput("validate needs at least one metric");
  if (!(options.alpha > 0 && options.alpha < 1)) return InvalidInput("--alpha must be in (0, 1), got {}", options.alpha);
  if (options.min_effect_pct < 0) return InvalidInput("--min-effect must not be negative");

  ValidationResult r;
  r.test = options.test;
  r.alpha = options.alpha;
  r.min_effect_pct = options.min_effect_pct;
  r.before_labels = before.labels;
  r.after_labels = after.labels;
  const bool per_run = before.runs.size() > 1 || after.runs.size() > 1;
  r.unit = per_run ? "run" : "step";

  std::vector<std::vector<Step>> steps_b, steps_a;
  for (const Trace* t : before.runs) steps_b.push_back(DetectSteps(*t));
  for (const Trace* t : after.runs) steps_a.push_back(DetectSteps(*t));

  RunMetricOptions ro;
  ro.items_per_step = options.items_per_step;
  std::vector<double> raw_p;
  for (const MetricInfo& m : options.metrics) {
    MetricValidation mv;
    mv.metric = m;
    ASSIGN_OR_RETURN(SideSamples b, Collect(before, steps_b, m, ro, per_run));
    ASSIGN_OR_RETURN(SideSamples a, Collect(after, steps_a, m, ro, per_run));
    mv.statistic = per_run ? (options.test == TwoSampleTest::kMannWhitney ? SampleStatistic::Median()
                                                                          : SampleStatistic::Mean())
                           : StepStatistic(m, options.test);
    CompareOptions co;
    co.test = options.test;
    co.statistic = mv.statistic;
    co.alpha = options.alpha;
    co.bootstrap.seed = options.seed;
    co.bootstrap.resamples = ResamplesFor(options, std::max(b.values.size(), a.values.size()));
    r.resamples = std::max(r.resamples, co.bootstrap.resamples);
    mv.comparison = CompareSamples(b.values, a.values, co);
    mv.p_value = mv.comparison.p_value;
    if (!per_run) {
      mv.before_autocorrelation = Lag1Autocorrelation(b.values);
      mv.after_autocorrelation = Lag1Autocorrelation(a.values);
      mv.run_level = RunLevelTest(b.values, a.values, mv.statistic);
      // Without the run-level test (too few steps) no change can be called from one run a side.
      if (!std::isnan(mv.p_value)) mv.p_value = mv.run_level.valid ? std::max(mv.p_value, mv.run_level.p_value) : 1;
    }
    mv.before_values = std::move(b.values);
    mv.after_values = std::move(a.values);
    mv.before_ids = std::move(b.ids);
    mv.after_ids = std::move(a.ids);
    raw_p.push_back(mv.p_value);
    r.metrics.push_back(std::move(mv));
  }

  const std::vector<double> adjusted = HolmAdjust(raw_p);
  bool any_regressed = false, any_improved = false;
  for (size_t i = 0; i < r.metrics.size(); ++i) {
    MetricValidation& mv = r.metrics[i];
    mv.p_adjusted = adjusted[i];
    const double change = mv.comparison.change_pct;
    const bool significant = !std::isnan(mv.p_adjusted) && mv.p_adjusted < options.alpha;
    const bool large = !std::isnan(change) && std::fabs(change) >= options.min_effect_pct;
    if (std::isnan(mv.p_adjusted)) {
      mv.reason = "not tested: too few values";
    } else if (!significant) {
      const bool by_run_level = !per_run && mv.p_value > mv.comparison.p_value;
      mv.reason = fmt::format("not significant (p = {:.3g} after Holm over {} metrics, alpha {:g}){}", mv.p_adjusted,
                              r.metrics.size(), options.alpha,
                              !by_run_level                ? ""
                              : mv.run_level.valid ? fmt::format(": the per-step test gives p = {:.3g}, but the "
                                                                 "run-level test cannot tell the change from the "
                                                                 "runs' own drift",
                                                                 mv.comparison.p_value)
                                                   : ": fewer than 6 steps a side for the run-level test");
      if (!large && !std::isnan(change))
        mv.reason += fmt::format("; the change {:+.2f}% is below the {:g}% noise threshold anyway", change,
                                 options.min_effect_pct);
    } else if (!large) {
      mv.reason = fmt::format("significant (p = {:.3g}) but the change {:+.2f}% is below the {:g}% noise threshold",
                              mv.p_adjusted, change, options.min_effect_pct);
    } else {
      const bool higher = change > 0;
      const bool better = (mv.metric.direction == MetricDirection::kHigherIsBetter) == higher;
      mv.verdict = better ? Verdict::kImproved : Verdict::kRegressed;
      mv.reason = fmt::format("significant (p = {:.3g}) and {:+.2f}% is beyond the {:g}% noise threshold",
                              mv.p_adjusted, change, options.min_effect_pct);
    }
    any_regressed |= mv.verdict == Verdict::kRegressed;
    any_improved |= mv.verdict == Verdict::kImproved;
  }
  r.verdict = any_regressed ? Verdict::kRegressed : any_improved ? Verdict::kImproved : Verdict::kUnchanged;

  if (per_run) {
    r.notes.push_back(fmt::format("the run is the unit of replication: {} run(s) before, {} after, one value per "
                                  "run and metric",
                                  before.runs.size(), after.runs.size()));
  } else {
    r.notes.push_back(
        "one run per side: the samples are the steps of one run each. Steps of one run share its conditions (machine "
        "load, clocks, data order) and runs differ from each other, so run-to-run variance is not captured by the "
        "per-step test; a change is called only when the run-level test agrees (each run cut into up to 5 batches of "
        "steps, a run's level taken as uncertain as it moves between its batches; it needs >= 6 steps a side). "
        "Repeat each side several times (folders or comma lists) to make the run the unit");
    double worst = 0;
    for (const MetricValidation& mv : r.metrics)
      worst = std::max({worst, mv.before_autocorrelation, mv.after_autocorrelation});
    if (worst > 0.2) {
      r.notes.push_back(fmt::format("the steps are autocorrelated (lag-1 up to {:.2f}): consecutive steps are not "
                                    "independent samples, which makes the per-step test anti-conservative",
                                    worst));
    }
  }
  return r;
}

}  // namespace cprof
