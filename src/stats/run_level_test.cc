#include "stats/run_level.h"

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace cprof {
namespace {

TEST(RunLevelTest, MatchesScipyOnBatchMeans) {
  // Reference: t and 2 * scipy.stats.t.sf(|t|, 8) on the logs of the 5 batch means.
  const std::vector<double> before = {10, 11, 9, 10, 12, 10, 11, 10, 9, 10};
  const std::vector<double> after = {12, 13, 12, 14, 12, 13, 13, 12, 14, 13};
  RunLevelResult r = RunLevelTest(before, after, SampleStatistic::Mean());
  ASSERT_TRUE(r.valid);
  EXPECT_TRUE(r.log_scale);
  EXPECT_EQ(r.batches, 5);
  EXPECT_DOUBLE_EQ(r.df, 8);
  EXPECT_NEAR(r.t, 3.062158866760412, 1e-12);
  EXPECT_NEAR(r.p_value, 0.015531616148422737, 1e-10);
}

// Two runs of one program whose levels differ by a run offset as large as the drift inside each
// run: a per-step test would call that a change, the run-level test must not.
TEST(RunLevelTest, RunOffsetWithinTheRunsOwnDriftIsNotAChange) {
  std::mt19937_64 rng(3);
  std::normal_distribution<double> noise(0, 0.5);
  auto run = [&](double level) {
    std::vector<double> v;
    for (int i = 0; i < 60; ++i) v.push_back(level + 3.0 * std::sin(i / 6.0) + noise(rng));  // slow drift
    return v;
  };
  std::vector<double> a = run(50), b = run(53);
  RunLevelResult r = RunLevelTest(a, b, SampleStatistic::Median());
  ASSERT_TRUE(r.valid);
  EXPECT_GT(r.p_value, 0.05) << "t = " << r.t;
}

TEST(RunLevelTest, LargeShiftIsSignificant) {
  std::mt19937_64 rng(5);
  std::lognormal_distribution<double> d(0, 0.2);
  std::vector<double> a, b;
  for (int i = 0; i < 30; ++i) a.push_back(40 * d(rng));
  for (int i = 0; i < 30; ++i) b.push_back(160 * d(rng));
  RunLevelResult r = RunLevelTest(a, b, SampleStatistic::Median());
  ASSERT_TRUE(r.valid);
  EXPECT_GT(r.t, 0);
  EXPECT_LT(r.p_value, 0.001);
}

TEST(RunLevelTest, NonPositiveValuesUseTheLinearScale) {
  std::vector<double> a = {-1, 1, -1, 1, -1, 1, -1, 1, -1, 1}, b = {5, 6, 5, 6, 5, 6, 5, 6, 5, 6};
  RunLevelResult r = RunLevelTest(a, b, SampleStatistic::Mean());
  ASSERT_TRUE(r.valid);
  EXPECT_FALSE(r.log_scale);
  EXPECT_EQ(r.p_value, 0) << "no batch-to-batch movement: any difference is beyond it";
}

TEST(RunLevelTest, ShortRunsGetFewerBatchesAndTooShortOnesNoTest) {
  std::vector<double> a = {1, 2, 3, 4, 5, 6, 7, 8, 9}, b = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  RunLevelResult r = RunLevelTest(a, b, SampleStatistic::Mean());
  ASSERT_TRUE(r.valid);
  EXPECT_EQ(r.batches, 4);  // 9 steps: 4 batches of >= 2
  EXPECT_DOUBLE_EQ(r.df, 6);
  EXPECT_FALSE(RunLevelTest(std::vector<double>{1, 2, 3, 4, 5}, b, SampleStatistic::Mean()).valid);
  EXPECT_FALSE(RunLevelTest(b, b, SampleStatistic::Mean(), 2).valid);
}

}  // namespace
}  // namespace cprof
