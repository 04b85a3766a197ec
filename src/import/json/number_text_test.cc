#include "import/json/number_text.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "base/time_units.h"

namespace cprof::json {
namespace {

TEST(NumberTextTest, FastMicrosToNsAgreesWithTheGeneralParserWhereItAnswers) {
  for (const char* t : {"0", "1", "1.5", "100.0004", "100.0005", "100.00049", "7.999999",
                        "1736408883688177.930", "9223372036854774.807", "12.", "1e3", "-5", " 5", ".5"}) {
    int64_t fast = 0;
    const bool answered = FastMicrosToNs(t, &fast);
    std::optional<TimeNs> general = ParseDecimalMicrosToNs(t);
    if (answered) {
      ASSERT_TRUE(general.has_value()) << t;
      EXPECT_EQ(fast, *general) << t;
    }
  }
  int64_t ns = 0;
  ASSERT_TRUE(FastMicrosToNs("1736408883688177.930", &ns));
  EXPECT_EQ(ns, 1736408883688177930);
  ASSERT_TRUE(FastMicrosToNs("100.0005", &ns));
  EXPECT_EQ(ns, 100001);  // half away from zero on the fourth fractional digit
  // What the fast path leaves to the general parser.
  EXPECT_FALSE(FastMicrosToNs("1e3", &ns));
  EXPECT_FALSE(FastMicrosToNs("-5", &ns));
  EXPECT_FALSE(FastMicrosToNs("12.", &ns));
  EXPECT_FALSE(FastMicrosToNs("99999999999999999", &ns));  // past int64 ns
}

TEST(NumberTextTest, JsonNumberSyntaxFollowsTheGrammar) {
  for (const char* ok : {"0", "-0", "12", "1.25", "-3.5e-7", "1E+9", "0.0"})
    EXPECT_TRUE(IsJsonNumberSyntax(ok)) << ok;
  for (const char* bad : {"", "-", "01", "1.", ".5", "1e", "1e+", "+1", "0x10", "NaN", "1 "})
    EXPECT_FALSE(IsJsonNumberSyntax(bad)) << bad;
}

TEST(NumberTextTest, IntegerFloatAndTrim) {
  EXPECT_TRUE(IsIntegerText("-42"));
  EXPECT_FALSE(IsIntegerText("-"));
  EXPECT_FALSE(IsIntegerText("4.2"));
  EXPECT_TRUE(LooksFloat("4.2"));
  EXPECT_TRUE(LooksFloat("4e2"));
  EXPECT_FALSE(LooksFloat("42"));
  EXPECT_EQ(Trim("12 \r\n\t"), "12");
}

TEST(NumberTextTest, NestingDepthSkipsBracketsInStrings) {
  EXPECT_EQ(NestingDepth(R"({"a": [1, {"b": 2}]})"), 3);
  EXPECT_EQ(NestingDepth(R"({"a": "[[[[\"{{"})"), 1);
  EXPECT_EQ(NestingDepth("42"), 0);
}

}  // namespace
}  // namespace cprof::json
