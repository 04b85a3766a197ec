// Interval set algebra: union merges touching intervals; difference and clipping.
#include "stats/interval_set.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

using V = std::vector<Interval>;

TEST(IntervalSetTest, UnionMergesOverlappingAndTouching) {
  IntervalSet s = IntervalSet::Union({{30, 40}, {0, 10}, {10, 20}, {5, 8}, {50, 50}});
  EXPECT_EQ(s.parts(), (V{{0, 20}, {30, 40}, {50, 50}}));
  EXPECT_EQ(s.Length(), 30);
  EXPECT_EQ(s.first_start(), 0);
  EXPECT_EQ(s.last_end(), 50);  // a zero-length interval still extends the span
}

TEST(IntervalSetTest, Minus) {
  IntervalSet a = IntervalSet::Union({{0, 100}, {200, 300}});
  IntervalSet b = IntervalSet::Union({{10, 20}, {90, 210}, {250, 260}, {400, 500}});
  EXPECT_EQ(a.Minus(b).parts(), (V{{0, 10}, {20, 90}, {210, 250}, {260, 300}}));
  EXPECT_EQ(a.Minus(IntervalSet()).parts(), a.parts());
  EXPECT_TRUE(IntervalSet().Minus(a).empty());
  EXPECT_TRUE(a.Minus(IntervalSet::Union({{-5, 1000}})).empty());
}

TEST(IntervalSetTest, Clip) {
  IntervalSet a = IntervalSet::Union({{0, 100}, {200, 300}});
  EXPECT_EQ(a.Clip(50, 250).parts(), (V{{50, 100}, {200, 250}}));
  EXPECT_EQ(a.Clip(100, 200).parts(), V{});
  EXPECT_EQ(a.Clip(-10, 1000).Length(), 200);
  EXPECT_TRUE(a.Clip(10, 10).empty());
}

}  // namespace
}  // namespace cprof
