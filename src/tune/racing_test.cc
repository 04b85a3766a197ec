// Racing's Welch test and the Student-t interval of a mean, including values near DBL_MAX.
#include "tune/racing.h"

#include <cfloat>
#include <cmath>
#include <vector>

#include <gtest/gtest.h>

namespace cprof::tune {
namespace {

TEST(RacingTest, MeanIntervalIsStudentT) {
  const std::vector<double> x = {10, 12, 14};
  MeanInterval ci = MeanConfidenceInterval(x);
  EXPECT_DOUBLE_EQ(ci.mean, 12);
  // t(0.975, 2) = 4.3027, sd = 2, n = 3.
  EXPECT_NEAR(ci.high - ci.mean, 4.302653 * 2 / std::sqrt(3.0), 1e-5);
  EXPECT_NEAR(ci.mean - ci.low, ci.high - ci.mean, 1e-12);
  const std::vector<double> one = {7};
  EXPECT_EQ(MeanConfidenceInterval(one).low, 7);
}

// Three objectives of 1e308 summed to infinity: the study reported "t = inf [-nan, inf]".
TEST(RacingTest, ValuesNearTheLargestDoubleHaveAFiniteMean) {
  const std::vector<double> x = {1e308, 1e308, 1e308};
  MeanInterval ci = MeanConfidenceInterval(x);
  EXPECT_DOUBLE_EQ(ci.mean, 1e308);
  EXPECT_DOUBLE_EQ(ci.low, 1e308);
  EXPECT_DOUBLE_EQ(ci.high, 1e308);
  const std::vector<double> spread = {1.0e308, 1.2e308, 1.4e308};
  ci = MeanConfidenceInterval(spread);
  EXPECT_DOUBLE_EQ(ci.mean, 1.2e308);
  EXPECT_TRUE(std::isfinite(ci.low));
  EXPECT_LT(ci.low, ci.mean);
  EXPECT_FALSE(std::isnan(ci.high));
}

// t(0.975, 2) gives 20 +- 43.0 for three runs of 10, 10 and 40 ms; a mean of times is not below 0.
TEST(RacingTest, MeanIntervalOfTimesStopsAtZero) {
  const std::vector<double> times = {10, 10, 40};
  MeanInterval ci = MeanConfidenceInterval(times);
  EXPECT_DOUBLE_EQ(ci.low, 0);
  EXPECT_NEAR(ci.high, 63.026527, 1e-5);
  const std::vector<double> gains = {-10, -10, -40};
  ci = MeanConfidenceInterval(gains);
  EXPECT_NEAR(ci.low, -63.026527, 1e-5);
  EXPECT_DOUBLE_EQ(ci.high, 0);
  const std::vector<double> both = {-10, 10, 40};  // a value on each side: the interval as it is
  EXPECT_LT(MeanConfidenceInterval(both).low, -10);
}

TEST(RacingTest, ClearlyWorseNeedsEvidenceAtAnyScale) {
  const std::vector<double> best = {10, 10.5, 9.5, 10.2};
  const std::vector<double> worse = {20, 21, 19, 20.5};
  const std::vector<double> alike = {10.1, 9.9, 10.4, 10};
  EXPECT_TRUE(ClearlyWorse(worse, best, 0.05));
  EXPECT_FALSE(ClearlyWorse(alike, best, 0.05));
  EXPECT_FALSE(ClearlyWorse(best, worse, 0.05));  // better is never worse
  std::vector<double> big_best, big_worse;
  for (double v : best) big_best.push_back(v * 1e306);
  for (double v : worse) big_worse.push_back(v * 1e306);  // 2e307: the squares overflowed
  EXPECT_TRUE(ClearlyWorse(big_worse, big_best, 0.05));
  // A deterministic objective computed two ways differs in rounding only: a tie, not worse.
  const std::vector<double> exact = {8.56434819336367, 8.56434819336367, 8.56434819336367};
  const std::vector<double> rounded = {8.56434819383242, 8.56434819383242, 8.56434819383242};
  EXPECT_FALSE(ClearlyWorse(rounded, exact, 0.05));
  EXPECT_TRUE(ClearlyWorse(std::vector<double>{9.0, 9.0, 9.0}, exact, 0.05));  // a real difference, no noise
}

}  // namespace
}  // namespace cprof::tune
