// FeasibilityModel: learns where trials fail, stays at 1 while none has, and keeps about the
// observed share of successes far from the data.
#include "tune/feasibility_model.h"

#include <gtest/gtest.h>

#include "tune/rng.h"

namespace cprof::tune {
namespace {

// Trials fail where column 0 exceeds 0.6 (a tile too large for the registers); column 1 is noise.
TEST(FeasibilityModelTest, LearnsWhereTrialsFail) {
  Rng rng(3);
  const int n = 24;
  Eigen::MatrixXd X(n, 2);
  std::vector<bool> ran(n);
  for (int i = 0; i < n; ++i) {
    X(i, 0) = rng.Uniform();
    X(i, 1) = rng.Uniform();
    ran[i] = X(i, 0) <= 0.6;
  }
  FeasibilityModel feas;
  feas.Fit(X, ran, 40);
  ASSERT_TRUE(feas.any_failed());
  Eigen::MatrixXd probe(4, 2);
  probe << 0.1, 0.5, 0.3, 0.9, 0.85, 0.2, 0.95, 0.7;
  Eigen::VectorXd p = feas.Probability(probe);
  EXPECT_GT(p[0], 0.8) << p.transpose();
  EXPECT_GT(p[1], 0.8) << p.transpose();
  EXPECT_LT(p[2], 0.2) << p.transpose();
  EXPECT_LT(p[3], 0.2) << p.transpose();
  for (Eigen::Index i = 0; i < p.size(); ++i) EXPECT_TRUE(p[i] >= 0 && p[i] <= 1);
}

TEST(FeasibilityModelTest, EveryConfigurationRunsWhileNoneHasFailed) {
  Eigen::MatrixXd X = Eigen::MatrixXd::Random(6, 3).cwiseAbs();
  FeasibilityModel feas;
  feas.Fit(X, std::vector<bool>(6, true), 40);
  EXPECT_FALSE(feas.any_failed());
  EXPECT_EQ(feas.Probability(Eigen::MatrixXd::Constant(2, 3, 0.5)), Eigen::VectorXd::Ones(2));
}

}  // namespace
}  // namespace cprof::tune
