// Unit tests of Dixon's Q test and the generalized ESD test.
#include <gtest/gtest.h>

#include <vector>

#include "stats/dixon_q.h"
#include "stats/generalized_esd.h"

namespace cprof {
namespace {

TEST(DixonQ, FlagsTheLowOutlierOfASmallSample) {
  std::vector<double> v = {10.2, 1.0, 10.0, 10.3, 10.1};
  DixonResult d = DixonQTest(v, DixonSide::kLow);
  ASSERT_TRUE(d.applicable);
  EXPECT_EQ(d.ratio, "r10");
  EXPECT_NEAR(d.statistic, 9.0 / 9.3, 1e-12);
  EXPECT_NEAR(d.critical, 0.827, 0.01);  // published 99.5% r10, n = 5
  EXPECT_TRUE(d.outlier);
  EXPECT_EQ(d.index, 1u);
  EXPECT_FALSE(DixonQTest(v, DixonSide::kHigh).outlier);
}

TEST(DixonQ, RatioByNAndPublishedCriticalValues) {
  // Critical values of our generated table against Dixon / Rorabacher (1991) at 99.5%.
  struct Case {
    size_t n;
    const char* ratio;
    double published;
  };
  for (Case c : {Case{3, "r10", 0.994}, Case{8, "r11", 0.725}, Case{11, "r21", 0.704}, Case{14, "r22", 0.674},
                 Case{20, "r22", 0.568}, Case{25, "r22", 0.519}}) {
    std::vector<double> v;
    for (size_t i = 0; i < c.n; ++i) v.push_back(static_cast<double>(i * i % 7) + 0.1 * static_cast<double>(i));
    DixonResult d = DixonQTest(v, DixonSide::kLow);
    ASSERT_TRUE(d.applicable) << c.n;
    EXPECT_EQ(d.ratio, c.ratio) << c.n;
    EXPECT_NEAR(d.critical, c.published, 0.012) << c.n;
  }
}

TEST(DixonQ, NotApplicable) {
  EXPECT_FALSE(DixonQTest(std::vector<double>{1, 2}, DixonSide::kLow).applicable);
  EXPECT_FALSE(DixonQTest(std::vector<double>(101, 1.0), DixonSide::kLow).applicable);
  EXPECT_FALSE(DixonQTest(std::vector<double>(10, 3.0), DixonSide::kLow).applicable);  // zero range
}

TEST(GeneralizedEsd, FindsSeveralLowOutliersWithoutMasking) {
  std::vector<double> v;
  for (int i = 0; i < 30; ++i) v.push_back(10.0 + 0.01 * ((i * 37) % 11 - 5));
  v[4] = 5.0;
  v[17] = 5.5;
  EsdResult e = GeneralizedEsdTest(v, 3, 0.005, EsdSide::kLow);
  ASSERT_TRUE(e.applicable);
  ASSERT_EQ(e.indices.size(), 2u);
  EXPECT_EQ(e.indices[0], 4u);
  EXPECT_EQ(e.indices[1], 17u);
  EXPECT_TRUE(GeneralizedEsdTest(v, 3, 0.005, EsdSide::kHigh).indices.empty());
}

TEST(GeneralizedEsd, NoOutliersInANormalLookingSample) {
  std::vector<double> v;
  for (int i = 0; i < 40; ++i) v.push_back(100.0 + ((i * 29) % 17 - 8));
  EXPECT_TRUE(GeneralizedEsdTest(v, 4, 0.005, EsdSide::kLow).indices.empty());
  EXPECT_FALSE(GeneralizedEsdTest(std::vector<double>(10, 1.0), 2, 0.005, EsdSide::kLow).applicable);
}

}  // namespace
}  // namespace cprof
