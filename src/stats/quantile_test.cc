// Quantiles agree with numpy's default (linear) method; summary stats on small samples.
#include "stats/quantile.h"

#include <cmath>

#include <gtest/gtest.h>

#include "stats/summary_stats.h"

namespace cprof {
namespace {

TEST(QuantileTest, MatchesNumpyLinear) {
  // np.quantile([1,2,3,4], [0, .25, .5, .99, 1]) -> [1, 1.75, 2.5, 3.97, 4]
  std::vector<double> v = {4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(Quantile(v, 0.0), 1.0);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.25), 1.75);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.5), 2.5);
  EXPECT_DOUBLE_EQ(Quantile(v, 0.99), 3.97);
  EXPECT_DOUBLE_EQ(Quantile(v, 1.0), 4.0);
  // np.percentile(range(101), 99) == 99; np.percentile([10], 50) == 10
  std::vector<int64_t> r;
  for (int i = 0; i <= 100; ++i) r.push_back(i);
  EXPECT_DOUBLE_EQ(Quantile(r, 0.99), 99.0);
  EXPECT_DOUBLE_EQ(Quantile(std::vector<int64_t>{10}, 0.5), 10.0);
}

TEST(QuantileTest, EmptyIsNan) { EXPECT_TRUE(std::isnan(Quantile(std::vector<double>{}, 0.5))); }

TEST(SummaryStatsTest, SmallSample) {
  SummaryStats s = Summarize({30, 10, 20, 40});
  EXPECT_EQ(s.count, 4);
  EXPECT_EQ(s.sum, 100);
  EXPECT_EQ(s.min, 10);
  EXPECT_EQ(s.max, 40);
  EXPECT_DOUBLE_EQ(s.mean, 25.0);
  EXPECT_DOUBLE_EQ(s.p50, 25.0);
  EXPECT_DOUBLE_EQ(s.p99, 39.7);                 // np.percentile([10,20,30,40], 99)
  EXPECT_NEAR(s.stddev, 12.909944487358056, 1e-12);  // np.std(ddof=1)
  SummaryStats empty = Summarize({});
  EXPECT_EQ(empty.count, 0);
  EXPECT_EQ(empty.p99, 0);
}

}  // namespace
}  // namespace cprof
