// Objective specs: names, directions, and names with parentheses (trace objectives), whose
// colons and commas belong to the name.
#include "tune/objective.h"

#include <gtest/gtest.h>

namespace cprof::tune {
namespace {

TEST(ObjectiveTest, NamesAndDirections) {
  auto two = ParseObjectives("latency_ms:min, mem_mb:max", "");
  ASSERT_TRUE(two.ok()) << two.status().message();
  ASSERT_EQ(two->size(), 2u);
  EXPECT_EQ((*two)[0].name, "latency_ms");
  EXPECT_FALSE((*two)[0].maximize);
  EXPECT_EQ((*two)[1].name, "mem_mb");
  EXPECT_TRUE((*two)[1].maximize);
  EXPECT_EQ(FormatObjectives(*two), "latency_ms:min,mem_mb:max");
  EXPECT_TRUE((*two)[0].direction_given);
  auto bare = ParseObjectives("throughput(step)", "");  // the metric's own direction may apply
  ASSERT_TRUE(bare.ok());
  EXPECT_FALSE((*bare)[0].direction_given);

  auto fallback = ParseObjectives("", "time");
  ASSERT_TRUE(fallback.ok());
  ASSERT_EQ(fallback->size(), 1u);
  EXPECT_EQ((*fallback)[0].name, "time");

  EXPECT_FALSE(ParseObjectives("latency:mn", "").ok());
  EXPECT_FALSE(ParseObjectives("a:min,a:max", "").ok());
}

TEST(ObjectiveTest, OperatorNamesInsideParenthesesKeepTheirColonsAndCommas) {
  auto objs = ParseObjectives("mean(aten::mm):max,p99(step),sum(pair(a,b)):min", "");
  ASSERT_TRUE(objs.ok()) << objs.status().message();
  ASSERT_EQ(objs->size(), 3u);
  EXPECT_EQ((*objs)[0].name, "mean(aten::mm)");
  EXPECT_TRUE((*objs)[0].maximize);
  EXPECT_EQ((*objs)[1].name, "p99(step)");
  EXPECT_FALSE((*objs)[1].maximize);
  EXPECT_EQ((*objs)[2].name, "sum(pair(a,b))");
  auto bare = ParseObjectives("mean(aten::mm)", "");
  ASSERT_TRUE(bare.ok()) << bare.status().message();
  EXPECT_EQ((*bare)[0].name, "mean(aten::mm)");
}

TEST(ObjectiveTest, ParetoFrontOfMinimizedPoints) {
  // (1, 5) and (3, 2) trade off; (4, 6) is dominated by both; the repeat of (1, 5) is dropped.
  EXPECT_EQ(ParetoFront({{1, 5}, {4, 6}, {3, 2}, {1, 5}}), (std::vector<size_t>{0, 2}));
}

}  // namespace
}  // namespace cprof::tune
