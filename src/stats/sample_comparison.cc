// Two-sample comparison: intervals, test, effect sizes, outliers, warnings.
#include "stats/sample_comparison.h"

#include <cmath>
#include <limits>

#include <fmt/core.h>

#include "stats/effect_size.h"
#include "stats/mann_whitney.h"
#include "stats/welch_t.h"

namespace cprof {
namespace {

bool IsConstant(std::span<const double> v) {
  for (double x : v)
    if (x != v.front()) return false;
  return true;
}

}  // namespace

SampleComparison CompareSamples(std::span<const double> before, std::span<const double> after,
                                const CompareOptions& options) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  SampleComparison c;
  c.test = options.test;
  c.statistic = options.statistic;
  c.n_before = static_cast<int64_t>(before.size());
  c.n_after = static_cast<int64_t>(after.size());
  c.warnings = SampleSizeWarnings(options.test, options.statistic, c.n_before, c.n_after, options.alpha);
  c.outliers_before = FlagMadOutliers(before);
  c.outliers_after = FlagMadOutliers(after);
  c.hodges_lehmann = HodgesLehmannShift(before, after);
  c.cliffs_delta = CliffsDelta(before, after);

  BootstrapOptions boot = options.bootstrap;
  boot.confidence = 1 - options.alpha;
  boot.null_value.reset();
  c.before = BootstrapBca(before, options.statistic, boot);
  c.after = BootstrapBca(after, options.statistic, boot);
  const double sb = options.statistic.Of(before);
  const double sa = options.statistic.Of(after);
  c.before.estimate = sb;  // also when the bootstrap could not run (n < 2)
  c.after.estimate = sa;
  c.change_pct = sb != 0 ? 100 * (sa / sb - 1) : kNaN;

  boot.null_value = 1.0;
  const BootstrapResult ratio = BootstrapBcaRatio(before, after, options.statistic, boot);
  if (ratio.valid) {
    c.change_ci_valid = true;
    c.change_ci_low_pct = 100 * (ratio.low - 1);
    c.change_ci_high_pct = 100 * (ratio.high - 1);
  }

  switch (options.test) {
    case TwoSampleTest::kWelchT: {
      const WelchTTestResult t = WelchTTest(after, before, 1 - options.alpha);
      c.p_value = t.valid ? t.p_value : kNaN;
      if (t.valid) {
        c.test_detail = fmt::format("Welch t = {:.3f}, df = {:.1f}", t.t, t.df);
        if (options.statistic.kind == SampleStatistic::Kind::kMean && t.mean_y != 0) {
          c.change_ci_valid = true;
          c.change_ci_low_pct = 100 * t.ci_low / t.mean_y;
          c.change_ci_high_pct = 100 * t.ci_high / t.mean_y;
        }
      }
      break;
    }
    case TwoSampleTest::kMannWhitney: {
      const MannWhitneyResult u = MannWhitneyU(after, before);
      c.p_value = u.valid ? u.p_value : kNaN;
      if (u.valid) {
        c.test_detail = fmt::format("Mann-Whitney U = {:g}, {}{}", u.u1,
                                    u.method_used == MannWhitneyMethod::kExact ? "exact" : "normal approximation",
                                    u.ties ? ", tie-corrected" : "");
      }
      break;
    }
    case TwoSampleTest::kBootstrap:
      c.p_value = ratio.valid && !ratio.degenerate ? ratio.p_value : kNaN;
      if (ratio.valid) {
        c.test_detail = fmt::format("bootstrap BCa, {} resamples, {}(after)/{}(before) = {:.4f}", ratio.resamples,
                                    options.statistic.Name(), options.statistic.Name(), ratio.estimate);
      }
      if (ratio.degenerate && IsConstant(before) && IsConstant(after)) {
        // No spread at all: the ratio is known exactly.
        c.p_value = ratio.estimate == 1 ? 1.0 : 0.0;
      }
      break;
  }
  if (c.n_before >= 2 && c.n_after >= 2 && std::isnan(c.p_value))
    c.warnings.push_back("the test could not be computed on these samples");
  return c;
}

}  // namespace cprof
