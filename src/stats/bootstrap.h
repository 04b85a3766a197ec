// Bootstrap confidence intervals, bias-corrected and accelerated (BCa, Efron & Tibshirani 1993,
// ch. 14), for a statistic of one sample and for the ratio of a statistic between two samples.
// Same definitions as `scipy.stats.bootstrap(..., method="BCa")`: the bias correction z0 from
// the share of replicates below the estimate (ties count half), the acceleration from the
// jackknife of each sample, the bounds as linear-interpolation percentiles of the replicates.
//
//   BootstrapOptions opt;                         // 9999 resamples, 95%, fixed seed
//   BootstrapResult p99 = BootstrapBca(step_ms, SampleStatistic::Percentile(99), opt);
//   opt.null_value = 1.0;                         // also test "the ratio is 1"
//   BootstrapResult r = BootstrapBcaRatio(before_ms, after_ms, SampleStatistic::Median(), opt);
//   // r.estimate = median(after) / median(before), [r.low, r.high], r.p_value
//
// Reproducible: the same inputs, options and seed give the same interval on every platform
// (see random.h). Cost: resamples x n per call (a quantile uses nth_element); the jackknife is
// O(n log n) for both the mean and the quantiles. Every call owns its generator and buffers, so
// calls may run in parallel on different threads.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace cprof {

// The statistic an interval is for: the mean, or a quantile (numpy's linear interpolation).
struct SampleStatistic {
  enum class Kind { kMean, kQuantile };
  Kind kind = Kind::kMean;
  double q = 0.5;  // kQuantile only, in [0, 1]

  static SampleStatistic Mean() { return {Kind::kMean, 0}; }
  static SampleStatistic Median() { return {Kind::kQuantile, 0.5}; }
  static SampleStatistic Percentile(double pct) { return {Kind::kQuantile, pct / 100}; }

  // "mean", "median", "p90", "p99", "p99.9".
  std::string Name() const;
  // The statistic of `values` (any order; quantiles sort a copy). NaN when empty.
  double Of(std::span<const double> values) const;
};

struct BootstrapOptions {
  int resamples = 9999;
  double confidence = 0.95;  // two-sided: (1 - confidence) / 2 in each tail
  uint64_t seed = 0x5eed2024ULL;
  // When set, p_value tests H0: statistic == null_value by inverting the BCa interval (the
  // p-value is the smallest 1 - confidence whose interval excludes null_value). Its resolution
  // is about 1 / resamples.
  std::optional<double> null_value;
};

struct BootstrapResult {
  bool valid = false;        // false when a sample is empty (or has fewer than 2 values)
  double estimate = 0;       // the statistic of the original sample(s)
  double low = 0;            // interval bounds
  double high = 0;
  double z0 = 0;             // bias correction
  double acceleration = 0;   // a_hat
  double p_value = 1;        // only meaningful when options.null_value is set
  int resamples = 0;
  // All replicates equal, or the jackknife has no spread: BCa is undefined, the interval is the
  // point estimate (SciPy returns NaN here).
  bool degenerate = false;
};

BootstrapResult BootstrapBca(std::span<const double> sample, SampleStatistic stat, const BootstrapOptions& options);

// The ratio stat(after) / stat(before); the two samples are resampled independently (unpaired).
BootstrapResult BootstrapBcaRatio(std::span<const double> before, std::span<const double> after, SampleStatistic stat,
                                  const BootstrapOptions& options);

// The BCa step alone: bounds from the estimate, the bootstrap replicates, and for each sample its
// jackknife (leave-one-out) values of the statistic. Exposed so tests can feed SciPy's replicates.
BootstrapResult BcaFromReplicates(double estimate, std::vector<double> replicates,
                                  const std::vector<std::vector<double>>& jackknife, const BootstrapOptions& options);

// Leave-one-out values of `stat` over `sample`, in ascending order of the left-out value.
std::vector<double> JackknifeValues(std::span<const double> sample, SampleStatistic stat);

}  // namespace cprof
