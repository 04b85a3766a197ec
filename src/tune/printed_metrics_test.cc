// Reading printed metrics: the last JSON line, regex captures, and values that are not finite
// numbers (Python's NaN and Infinity, 1e999, strings), kept apart with what they are.
#include "tune/printed_metrics.h"

#include <gtest/gtest.h>

namespace cprof::tune {
namespace {

PrintedMetrics Parse(const std::string& out, std::vector<std::pair<std::string, std::string>> regex = {}) {
  std::vector<std::pair<std::string, std::regex>> compiled;
  for (const auto& [name, re] : regex) compiled.emplace_back(name, std::regex(re));
  return ParsePrintedMetrics(out, compiled);
}

TEST(PrintedMetricsTest, LastJsonLineAndRegexCaptures) {
  PrintedMetrics m = Parse("{\"t\": 1}\nlog line\n  {\"t\": 2.5, \"mem\": 3, \"name\": \"run1\"}  \nlatency: 7 ms\n",
                           {{"lat", "latency: ([0-9.]+) ms"}});
  EXPECT_EQ(m.values.at("t"), 2.5);
  EXPECT_EQ(m.values.at("mem"), 3);
  EXPECT_EQ(m.values.at("lat"), 7);
  // A field that is no objective may be anything; it is only kept apart.
  EXPECT_EQ(m.not_numbers.at("name"), "is a string (\"run1\"), not a number");
  EXPECT_TRUE(Parse("no json\n{not json}\n").values.empty());
}

// nlohmann/json refuses NaN, Infinity and 1e999, so the whole line was lost: `{"t": NaN}` read as
// "no metrics in the output", and so did `{"t": 1.2, "mem": NaN}`, whose objective was fine.
TEST(PrintedMetricsTest, NonFiniteAndStringValuesSayWhatTheyAre) {
  PrintedMetrics m = Parse("{\"t\": NaN, \"a\": Infinity, \"b\": -Infinity, \"c\": 1e999, \"d\": \"12.5\", "
                           "\"e\": null, \"f\": true, \"g\": [1], \"h\": nan, \"i\": -inf, \"ok\": -1.5e-3, "
                           "\"s\": \"NaN, Infinity: 1e999\"}");
  EXPECT_EQ(m.values.size(), 1u);
  EXPECT_EQ(m.values.at("ok"), -1.5e-3);
  EXPECT_EQ(m.not_numbers.at("t"), "is NaN");
  EXPECT_EQ(m.not_numbers.at("a"), "is infinite");
  EXPECT_EQ(m.not_numbers.at("b"), "is infinite");
  EXPECT_EQ(m.not_numbers.at("c"), "is infinite");
  EXPECT_EQ(m.not_numbers.at("d"), "is a string (\"12.5\"), not a number");
  EXPECT_EQ(m.not_numbers.at("e"), "is null, not a number");
  EXPECT_EQ(m.not_numbers.at("f"), "is a boolean (true), not a number");
  EXPECT_EQ(m.not_numbers.at("g"), "is an array, not a number");
  EXPECT_EQ(m.not_numbers.at("h"), "is NaN");
  EXPECT_EQ(m.not_numbers.at("i"), "is infinite");
  EXPECT_EQ(m.not_numbers.at("s"), "is a string (\"NaN, Infinity: 1e999\"), not a number");  // strings untouched
  PrintedMetrics mixed = Parse("{\"t\": 1.2, \"mem\": NaN}");
  EXPECT_EQ(mixed.values.at("t"), 1.2);
  EXPECT_EQ(mixed.not_numbers.at("mem"), "is NaN");
}

TEST(PrintedMetricsTest, ACaptureThatIsNoNumberSaysSo) {
  PrintedMetrics m = Parse("{\"lat\": 3}\nlatency: nan ms\nthroughput: fast\n",
                           {{"lat", "latency: (\\S+) ms"}, {"tput", "throughput: (\\S+)"}});
  EXPECT_TRUE(m.values.empty());
  EXPECT_EQ(m.not_numbers.at("lat"), "is NaN");  // the capture wins over the JSON field
  EXPECT_EQ(m.not_numbers.at("tput"), "is \"fast\", not a number");
}

}  // namespace
}  // namespace cprof::tune
