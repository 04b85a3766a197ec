// Validation of an optimization: did the metrics of the "after" runs change compared with the
// "before" runs, by how much, and is it more than noise? The statistics behind `validate`.
//
//   RunSet before{{&b}, {"base.json"}}, after{{&a}, {"tuned.json"}};
//   ValidateOptions opt;                 // metrics, test, alpha, --min-effect
//   ASSIGN_OR_RETURN(ValidationResult r, Validate(before, after, opt));
//   if (r.verdict == Verdict::kRegressed) ...
//
// The unit of replication: with one run per side the samples are the runs' steps (per-step
// values of each metric, run_metrics.h). Steps of one run share its conditions and runs differ
// from each other, so a per-step test cannot see run-to-run variance: the verdict then also needs
// the run-level test (stats/run_level.h: batches of steps, a run's level as uncertain as it
// moves between its batches), and the p-value is the larger of the two. The lag-1
// autocorrelation of the steps is reported as a hint of how much the steps depend on each other.
// With several runs on either side, each run contributes one value per metric and the run is
// the unit.
//
// Verdict per metric: a change is called only when (1) the Holm-adjusted p-value across the
// metrics is below alpha and (2) the relative change of the metric's statistic is at least
// min_effect_pct (default 2%, criterion's noise threshold). Its direction and the metric's
// "better" direction decide improved or regressed. Overall: regressed if any metric regressed,
// else improved if any improved, else unchanged.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "model/trace.h"
#include "stats/metric_registry.h"
#include "stats/run_level.h"
#include "stats/sample_comparison.h"

namespace cprof {

enum class Verdict { kImproved, kRegressed, kUnchanged };
std::string_view VerdictName(Verdict v);  // "improved", "regressed", "unchanged"

struct RunSet {
  std::vector<const Trace*> runs;   // not owned
  std::vector<std::string> labels;  // one per run (its path)
};

struct ValidateOptions {
  std::vector<MetricInfo> metrics;  // from the registry
  TwoSampleTest test = TwoSampleTest::kMannWhitney;
  double alpha = 0.05;
  double min_effect_pct = 2.0;
  double items_per_step = 1;        // throughput
  int resamples = 0;                // bootstrap resamples; 0 = 9999, fewer for large samples
  uint64_t seed = 0x5eed2024ULL;
};

struct MetricValidation {
  MetricInfo metric;
  SampleStatistic statistic;        // which statistic of the samples before/after/change refer to
  SampleComparison comparison;      // intervals, raw p, effect sizes, outliers, warnings
  double p_adjusted = 1;            // Holm across the metrics; the verdict uses this
  Verdict verdict = Verdict::kUnchanged;
  std::string reason;               // one line: why this verdict
  std::vector<double> before_values;  // the samples used, in the metric's unit
  std::vector<double> after_values;
  std::vector<int64_t> before_ids;    // step ids (per-step) or run indices (per-run)
  std::vector<int64_t> after_ids;
  double before_autocorrelation = 0;  // lag-1, per-step samples only
  double after_autocorrelation = 0;
  RunLevelResult run_level;           // one run per side only (invalid otherwise)
  double p_value = 1;                 // what Holm adjusts: max(per-step p, run-level p) or per-run p
};

struct ValidationResult {
  Verdict verdict = Verdict::kUnchanged;
  std::string unit;                 // "step" or "run"
  TwoSampleTest test = TwoSampleTest::kMannWhitney;
  double alpha = 0.05;
  double min_effect_pct = 2.0;
  int resamples = 0;
  std::vector<std::string> before_labels;
  std::vector<std::string> after_labels;
  std::vector<MetricValidation> metrics;
  std::vector<std::string> notes;   // caveats that apply to the whole result
};

// kInvalidInput when a side has no runs or a metric cannot be read from a run (the message
// names the run and what it lacks).
StatusOr<ValidationResult> Validate(const RunSet& before, const RunSet& after, const ValidateOptions& options);

// Lag-1 autocorrelation of a series (0 when fewer than 3 values or no variance).
double Lag1Autocorrelation(const std::vector<double>& v);

}  // namespace cprof
