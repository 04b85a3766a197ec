// Properties of src/stats that need no reference values: edge cases, reproducibility, large inputs.
#include <algorithm>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

#include "stats/bootstrap.h"
#include "stats/effect_size.h"
#include "stats/mann_whitney.h"
#include "stats/multiple_testing.h"
#include "stats/outliers.h"
#include "stats/random.h"
#include "stats/sample_comparison.h"
#include "stats/sample_size.h"
#include "stats/welch_t.h"

namespace cprof {
namespace {

std::vector<double> Noise(uint64_t seed, size_t n, double center, double spread) {
  Random rng(seed);
  std::vector<double> v(n);
  for (double& x : v) {
    // Sum of uniforms: near-normal, deterministic.
    double s = 0;
    for (int k = 0; k < 12; ++k) s += static_cast<double>(rng.Next() >> 11) * 0x1.0p-53;
    x = center + spread * (s - 6);
  }
  return v;
}

TEST(Random, IndexIsUniformAndReproducible) {
  Random a(7), b(7);
  std::vector<int> counts(10);
  for (int i = 0; i < 100000; ++i) {
    const uint64_t x = a.Index(10);
    ASSERT_EQ(x, b.Index(10));
    counts[x]++;
  }
  for (int c : counts) EXPECT_NEAR(c, 10000, 500);
}

TEST(MannWhitney, ExactDistributionSumsToOneAndIsSymmetric) {
  for (auto [n1, n2] : {std::pair{1, 1}, {3, 5}, {8, 8}, {4, 30}, {7, 2}}) {
    const int64_t mn = int64_t{n1} * n2;
    EXPECT_NEAR(MannWhitneyExactSf(0, n1, n2), 1.0, 1e-12);
    for (int64_t u = 0; u <= mn; ++u) {
      // P(U >= u) + P(U >= mn - u + 1) = P(U >= u) + P(U <= u - 1) = 1.
      EXPECT_NEAR(MannWhitneyExactSf(u, n1, n2) + MannWhitneyExactSf(mn - u + 1, n1, n2), 1.0, 1e-12);
    }
  }
  EXPECT_NEAR(MannWhitneyMinPValue(3, 3), 0.1, 1e-12);
  EXPECT_NEAR(MannWhitneyExactSf(9, 3, 3), 0.05, 1e-12);
}

TEST(MannWhitney, LargeExactCaseStaysFinite) {
  // m = 8, n = 20000: 160,000 cells, p is tiny but well defined.
  std::vector<double> x = Noise(1, 8, 10, 1), y = Noise(2, 20000, 12, 1);
  const MannWhitneyResult r = MannWhitneyU(x, y);
  EXPECT_EQ(r.method_used, MannWhitneyMethod::kExact);
  EXPECT_GT(r.p_value, 0);
  EXPECT_LT(r.p_value, 1e-3);
}

TEST(WelchTTest, ConstantSamples) {
  std::vector<double> a = {5, 5, 5}, b = {5, 5, 5, 5}, c = {6, 6, 6};
  EXPECT_EQ(WelchTTest(a, b).p_value, 1.0);
  EXPECT_EQ(WelchTTest(a, c).p_value, 0.0);
  EXPECT_FALSE(WelchTTest(std::vector<double>{1}, b).valid);
}

TEST(HodgesLehmann, SelectionPathMatchesBruteForce) {
  // 1100 x 1000 pairs: above the direct threshold, so the staircase selection runs.
  const std::vector<double> before = Noise(3, 1100, 100, 7), after = Noise(4, 1000, 103, 9);
  std::vector<double> diffs;
  for (double y : after)
    for (double x : before) diffs.push_back(y - x);
  std::sort(diffs.begin(), diffs.end());
  const double want = (diffs[diffs.size() / 2 - 1] + diffs[diffs.size() / 2]) / 2;
  EXPECT_DOUBLE_EQ(HodgesLehmannShift(before, after), want);
  // Odd count too.
  const std::vector<double> after_odd(after.begin(), after.begin() + 999);
  const std::vector<double> before_odd = Noise(5, 1101, 100, 7);
  diffs.clear();
  for (double y : after_odd)
    for (double x : before_odd) diffs.push_back(y - x);
  std::nth_element(diffs.begin(), diffs.begin() + diffs.size() / 2, diffs.end());
  EXPECT_DOUBLE_EQ(HodgesLehmannShift(before_odd, after_odd), diffs[diffs.size() / 2]);
}

TEST(HodgesLehmann, ShiftOfIntegersWithTies) {
  std::vector<double> before(1500, 10.0), after(1000, 12.0);
  before[0] = 9;
  EXPECT_DOUBLE_EQ(HodgesLehmannShift(before, after), 2.0);
  EXPECT_DOUBLE_EQ(CliffsDelta(before, after), 1.0);
  EXPECT_DOUBLE_EQ(CliffsDelta(after, before), -1.0);
}

TEST(Bootstrap, SameSeedSameIntervalDifferentSeedClose) {
  const std::vector<double> v = Noise(9, 300, 50, 5);
  BootstrapOptions opt;
  const BootstrapResult a = BootstrapBca(v, SampleStatistic::Median(), opt);
  const BootstrapResult b = BootstrapBca(v, SampleStatistic::Median(), opt);
  EXPECT_EQ(a.low, b.low);
  EXPECT_EQ(a.high, b.high);
  opt.seed = 12345;
  const BootstrapResult c = BootstrapBca(v, SampleStatistic::Median(), opt);
  EXPECT_NEAR(a.low, c.low, 0.2 * (a.high - a.low));
  EXPECT_LT(a.low, a.estimate);
  EXPECT_GT(a.high, a.estimate);
}

TEST(Bootstrap, ConstantSampleIsDegenerate) {
  const std::vector<double> v(20, 3.0);
  const BootstrapResult r = BootstrapBca(v, SampleStatistic::Mean(), {});
  EXPECT_TRUE(r.valid);
  EXPECT_TRUE(r.degenerate);
  EXPECT_EQ(r.low, 3.0);
  EXPECT_EQ(r.high, 3.0);
  EXPECT_FALSE(BootstrapBca(std::vector<double>{1.0}, SampleStatistic::Mean(), {}).valid);
}

TEST(Bootstrap, InvertedPValueAgreesWithInterval) {
  // The ratio interval excludes 1 exactly when the p-value of "ratio = 1" is below 1 - confidence.
  for (double shift : {0.0, 0.5, 1.0, 2.0, 4.0}) {
    const std::vector<double> before = Noise(10, 60, 100, 5), after = Noise(11, 60, 100 + shift, 5);
    BootstrapOptions opt;
    opt.null_value = 1.0;
    const BootstrapResult r = BootstrapBcaRatio(before, after, SampleStatistic::Mean(), opt);
    const bool excludes = r.low > 1 || r.high < 1;
    if (std::fabs(r.p_value - 0.05) > 0.005) {
      EXPECT_EQ(excludes, r.p_value < 0.05) << shift << " p " << r.p_value;
    }
  }
}

TEST(Holm, NaNStaysOutOfTheFamily) {
  const std::vector<double> p = {0.01, std::nan(""), 0.02};
  const std::vector<double> adj = HolmAdjust(p);
  EXPECT_DOUBLE_EQ(adj[0], 0.02);
  EXPECT_TRUE(std::isnan(adj[1]));
  EXPECT_DOUBLE_EQ(adj[2], 0.02);
}

TEST(Outliers, ZeroMadFallsBackToMeanDeviation) {
  std::vector<double> v(30, 10.0);
  v[5] = 50;
  const OutlierReport o = FlagMadOutliers(v);
  EXPECT_EQ(o.mad_normal, 0);
  EXPECT_EQ(o.indices, std::vector<size_t>{5});
  EXPECT_EQ(o.high, 1u);
}

TEST(SampleSize, WarnsWhenTheStatementNeedsMoreData) {
  EXPECT_EQ(MinSamplesForInterval(SampleStatistic::Percentile(99)), 500);
  EXPECT_EQ(MinSamplesForInterval(SampleStatistic::Percentile(90)), 50);
  EXPECT_EQ(MinSamplesForInterval(SampleStatistic::Median()), 10);
  auto w = SampleSizeWarnings(TwoSampleTest::kMannWhitney, SampleStatistic::Percentile(99), 120, 130, 0.05);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("p99 interval needs at least 500"), std::string::npos) << w[0];
  w = SampleSizeWarnings(TwoSampleTest::kMannWhitney, SampleStatistic::Mean(), 3, 3, 0.05);
  EXPECT_EQ(w.size(), 2u);
  EXPECT_NE(w[1].find("cannot reach p < 0.05"), std::string::npos) << w[1];
  EXPECT_TRUE(SampleSizeWarnings(TwoSampleTest::kMannWhitney, SampleStatistic::Median(), 200, 200, 0.05).empty());
  TwoSampleTest t;
  EXPECT_TRUE(ParseTwoSampleTest("t-test", &t));
  EXPECT_EQ(t, TwoSampleTest::kWelchT);
  EXPECT_FALSE(ParseTwoSampleTest("chi2", &t));
}

TEST(CompareSamples, DetectsAShiftAndReportsItsSize) {
  const std::vector<double> before = Noise(20, 200, 100, 4), after = Noise(21, 200, 105, 4);
  for (TwoSampleTest test : {TwoSampleTest::kWelchT, TwoSampleTest::kMannWhitney, TwoSampleTest::kBootstrap}) {
    CompareOptions opt;
    opt.test = test;
    opt.statistic = test == TwoSampleTest::kWelchT ? SampleStatistic::Mean() : SampleStatistic::Median();
    const SampleComparison c = CompareSamples(before, after, opt);
    // The bootstrap's p-value cannot go below about 1 / resamples.
    EXPECT_LT(c.p_value, test == TwoSampleTest::kBootstrap ? 1e-3 : 1e-6) << TwoSampleTestName(test);
    EXPECT_NEAR(c.change_pct, 5, 1.5);
    EXPECT_LT(c.change_ci_low_pct, c.change_pct);
    EXPECT_GT(c.change_ci_high_pct, c.change_pct);
    EXPECT_GT(c.change_ci_low_pct, 0);
    EXPECT_NEAR(c.hodges_lehmann, 5, 1.5);
    EXPECT_GT(c.cliffs_delta, 0.474);
    EXPECT_TRUE(c.warnings.empty());
    EXPECT_FALSE(c.test_detail.empty());
  }
}

TEST(CompareSamples, NoShiftNoSignificance) {
  const std::vector<double> before = Noise(30, 150, 100, 4), after = Noise(31, 150, 100, 4);
  for (TwoSampleTest test : {TwoSampleTest::kWelchT, TwoSampleTest::kMannWhitney, TwoSampleTest::kBootstrap}) {
    CompareOptions opt;
    opt.test = test;
    const SampleComparison c = CompareSamples(before, after, opt);
    EXPECT_GT(c.p_value, 0.05) << TwoSampleTestName(test);
    EXPECT_LT(c.change_ci_low_pct, 0);
    EXPECT_GT(c.change_ci_high_pct, 0);
  }
}

}  // namespace
}  // namespace cprof
