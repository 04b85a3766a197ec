// Tests of exact decimal time parsing and duration flags.
#include "base/time_units.h"

#include <gtest/gtest.h>

#include "base/string_pool.h"

namespace cprof {
namespace {

TEST(TimeUnitsTest, ParsesDecimalMicrosExactly) {
  EXPECT_EQ(ParseDecimalMicrosToNs("1736408883688177.930"), 1736408883688177930);
  EXPECT_EQ(ParseDecimalMicrosToNs("12"), 12000);
  EXPECT_EQ(ParseDecimalMicrosToNs("0.0015"), 2);   // half rounds away from zero
  EXPECT_EQ(ParseDecimalMicrosToNs("-3.25"), -3250);
  EXPECT_EQ(ParseDecimalMicrosToNs("1.2344"), 1234);
  EXPECT_FALSE(ParseDecimalMicrosToNs("1e3").has_value());
  EXPECT_FALSE(ParseDecimalMicrosToNs("").has_value());
  EXPECT_FALSE(ParseDecimalMicrosToNs("99999999999999999999").has_value());
}

TEST(TimeUnitsTest, DurationsNeedAUnit) {
  EXPECT_EQ(*ParseDuration("300s"), 300 * kNsPerS);
  EXPECT_EQ(*ParseDuration("200ms"), 200 * kNsPerMs);
  EXPECT_EQ(*ParseDuration("1.5us"), 1500);
  EXPECT_EQ(*ParseDuration("2m"), 120 * kNsPerS);
  EXPECT_FALSE(ParseDuration("300").ok());
  EXPECT_NE(ParseDuration("300").status().message().find("give a unit, e.g. 300s or 300ms"), std::string::npos)
      << ParseDuration("300").status().message();
  EXPECT_EQ(ParseDuration("abc").status().code(), StatusCode::kInvalidInput);
  // Compound durations, larger units first (tune --timeout 1h30m was refused).
  EXPECT_EQ(*ParseDuration("1h30m"), 5400 * kNsPerS);
  EXPECT_EQ(*ParseDuration("2m30s"), 150 * kNsPerS);
  EXPECT_EQ(*ParseDuration("1m0.5s"), 60500 * kNsPerMs);
  EXPECT_EQ(*ParseDuration("1s250ms"), 1250 * kNsPerMs);
  EXPECT_EQ(*ParseDuration("-1s500ms"), -1500 * kNsPerMs);
  EXPECT_NE(ParseDuration("30s1m").status().message().find("from larger units to smaller"), std::string::npos);
  EXPECT_FALSE(ParseDuration("1s1s").ok());
  EXPECT_FALSE(ParseDuration("1h30").ok());
  EXPECT_FALSE(ParseDuration("1h-30m").ok());
  EXPECT_FALSE(ParseDuration("h").ok());
  // Beyond an int64 of nanoseconds (292 years): said so, not "write a number with a unit".
  EXPECT_EQ(ParseDuration("99999999999s").status().message(),
            "'99999999999s' is not a duration: too long (at most 292 years)");
  EXPECT_EQ(ParseDuration("1h99999999999m").status().message(),
            "'1h99999999999m' is not a duration: too long (at most 292 years)");
  EXPECT_NE(ParseDuration("1.2.3s").status().message().find("write a number with a unit"), std::string::npos);
  EXPECT_EQ(*ParseDuration("9223372036s"), 9223372036 * kNsPerS);
  auto r = ParseTimeRange("1s:2s");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*r->start, kNsPerS);
  EXPECT_FALSE(ParseTimeRange("2s:1s").ok());
}

// An estimate reads to the second: the progress line said "eta 41.876 s" and "eta 0 ns".
TEST(TimeUnitsTest, FormatsRemainingTimeToTheSecond) {
  EXPECT_EQ(FormatRemaining(0), "0 s");
  EXPECT_EQ(FormatRemaining(-3), "0 s");
  EXPECT_EQ(FormatRemaining(41.876), "42 s");
  EXPECT_EQ(FormatRemaining(59.6), "1 min 0 s");
  EXPECT_EQ(FormatRemaining(192), "3 min 12 s");
  EXPECT_EQ(FormatRemaining(2 * 3600 + 5 * 60 + 59), "2 h 05 min");
}

TEST(StringPoolTest, InternsOnceAndSurvivesGrowth) {
  StringPool pool;
  EXPECT_EQ(pool.Intern(""), kEmptyString);
  StringId a = pool.Intern("aten::mm");
  for (int i = 0; i < 5000; ++i) pool.Intern("name" + std::to_string(i));
  EXPECT_EQ(pool.Intern("aten::mm"), a);
  EXPECT_EQ(pool.Get(a), "aten::mm");
  EXPECT_EQ(pool.Get(*pool.Find("name4999")), "name4999");
  EXPECT_FALSE(pool.Find("absent").has_value());
}

}  // namespace
}  // namespace cprof
