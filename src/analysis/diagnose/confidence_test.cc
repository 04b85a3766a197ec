#include "analysis/diagnose/confidence.h"

#include <gtest/gtest.h>

#include <cmath>

#include "analysis/diagnose/category.h"

namespace cprof {
namespace {

TEST(Confidence, BelowThresholdIsZero) {
  EXPECT_EQ(MagnitudeOverThreshold(0.1, 0.15), 0);
  EXPECT_EQ(MagnitudeOverThreshold(0.15, 0.15), 0);
  ConfidenceTerms t;
  t.support = 1;
  EXPECT_EQ(ComputeConfidence(t), 0);
}

TEST(Confidence, FormulaAsDocumented) {
  EXPECT_DOUBLE_EQ(MagnitudeOverThreshold(0.30, 0.15), 0.5);
  EXPECT_DOUBLE_EQ(SupportFromCount(3), 0.5);
  EXPECT_EQ(SupportFromCount(0), 0);
  ConfidenceTerms t{.magnitude = 0.5, .support = 0.5, .consistency = 1, .specificity = 1};
  EXPECT_NEAR(ComputeConfidence(t), std::pow(0.5, 0.4) * std::pow(0.5, 0.2), 1e-12);
  // Monotone in every term.
  ConfidenceTerms more = t;
  more.magnitude = 0.9;
  EXPECT_GT(ComputeConfidence(more), ComputeConfidence(t));
  more = t;
  more.specificity = 0.5;
  EXPECT_LT(ComputeConfidence(more), ComputeConfidence(t));
}

TEST(Category, IdsRoundTripAndAreUnique) {
  for (int i = 0; i <= static_cast<int>(Category::kGc); ++i) {
    const Category c = static_cast<Category>(i);
    ASSERT_EQ(CategoryFromId(CategoryId(c)), c) << CategoryId(c);
    EXPECT_FALSE(CategoryDoc(c).empty());
  }
  EXPECT_FALSE(CategoryFromId("no_such_category").has_value());
}

}  // namespace
}  // namespace cprof
