// Compares two samples of one quantity (step times, per-run throughput, ...) and says everything a
// verdict needs: each side's statistic with its interval, the relative change with its interval,
// the p-value of the chosen test, two effect sizes, outlier flags and sample-size warnings.
//
//   CompareOptions opt;                          // Mann-Whitney, median, alpha 0.05
//   SampleComparison c = CompareSamples(before_ms, after_ms, opt);
//   // c.change_pct = 100 * (median(after) / median(before) - 1), in [c.change_ci_low_pct, ...]
//   // c.p_value, c.hodges_lehmann (after - before), c.cliffs_delta, c.warnings
//
// Which question the p-value answers depends on the test: Welch's t-test, "did the mean move";
// Mann-Whitney, "is one side stochastically larger"; bootstrap, "is the ratio of the chosen
// statistic 1" (the BCa interval inverted). The change interval is the BCa interval of the ratio
// statistic(after) / statistic(before), except for the t-test on the mean, where it is Welch's
// interval of the difference over the mean before. Deciding what is an improvement is the
// caller's business (it knows whether higher is better). Pure function; no I/O.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "stats/bootstrap.h"
#include "stats/outliers.h"
#include "stats/sample_size.h"

namespace cprof {

struct CompareOptions {
  TwoSampleTest test = TwoSampleTest::kMannWhitney;
  SampleStatistic statistic = SampleStatistic::Median();
  double alpha = 0.05;          // intervals are at confidence 1 - alpha
  BootstrapOptions bootstrap;   // resamples and seed; confidence and null_value are set from the above
};

struct SampleComparison {
  TwoSampleTest test = TwoSampleTest::kMannWhitney;
  SampleStatistic statistic;
  int64_t n_before = 0;
  int64_t n_after = 0;
  BootstrapResult before;       // statistic(before) with its interval
  BootstrapResult after;
  double change_pct = 0;        // 100 * (statistic(after) / statistic(before) - 1)
  double change_ci_low_pct = 0;
  double change_ci_high_pct = 0;
  bool change_ci_valid = false;
  double p_value = 1;           // NaN when the test cannot run (fewer than 2 values a side)
  std::string test_detail;      // e.g. "Mann-Whitney U = 120, exact" — the statistic behind p
  double hodges_lehmann = 0;    // median of after_j - before_i, in the data's unit
  double cliffs_delta = 0;      // P(after > before) - P(after < before)
  OutlierReport outliers_before;
  OutlierReport outliers_after;
  std::vector<std::string> warnings;
};

SampleComparison CompareSamples(std::span<const double> before, std::span<const double> after,
                                const CompareOptions& options);

}  // namespace cprof
