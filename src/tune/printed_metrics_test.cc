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

PrintedMetrics ReadInChunks(const std::string& out, size_t chunk,
                            const std::vector<std::pair<std::string, std::regex>>& regex = {}) {
  PrintedMetricsReader reader(regex);
  for (size_t i = 0; i < out.size(); i += chunk) reader.Append(std::string_view(out).substr(i, chunk));
  return reader.Finish();
}

std::string LogLines(size_t bytes) {
  std::string log;
  while (log.size() < bytes) log += "step " + std::to_string(log.size()) + " loss 0.5 {not json}\n";
  return log;
}

// Only the last 1 MiB of stdout was kept: a result followed by more log than that read as "it
// reports nothing", and a window that began inside a line read that line's tail as a line
// (`stale: {"t": 999}` became t = 999).
TEST(PrintedMetricsTest, TheResultIsReadHoweverMuchOutputFollowsIt) {
  const std::vector<std::pair<std::string, std::regex>> regex = {{"r", std::regex("result r=([0-9]+)")}};
  const std::string out = "{\"t\": 10}\nresult r=7\nstale: {\"t\": 999}\n" + LogLines(3 << 20);
  for (size_t chunk : {size_t{1} << 20, size_t{65536}, size_t{4093}}) {
    PrintedMetrics m = ReadInChunks(out, chunk, regex);
    EXPECT_EQ(m.values.at("t"), 10) << chunk;
    EXPECT_EQ(m.values.at("r"), 7) << chunk;
  }
  // A JSON line longer than the old window (1.5 MB of per-iteration times) is read whole.
  std::string iters = "{\"t\": 3, \"iter_ms\": [";
  for (int i = 0; i < 250000; ++i) iters += (i ? ", " : "") + std::to_string(i % 97) + ".25";
  iters += "]}";
  ASSERT_GT(iters.size(), size_t{1} << 20);
  PrintedMetrics m = ReadInChunks("warm-up\n" + iters + "\n", 65536);
  EXPECT_EQ(m.values.at("t"), 3);
  EXPECT_EQ(m.not_numbers.at("iter_ms"), "is an array, not a number");
}

// A JSON line over kMaxLineBytes is not read, whatever the size of the reads: the result before
// it stands, and a line after it is read.
TEST(PrintedMetricsTest, AnOverlongLineIsNotReadAndTheNextOneIs) {
  const std::string overlong =
      "{\"t\": 3, \"pad\": \"" + std::string(PrintedMetricsReader::kMaxLineBytes, 'x') + "\"}\n";
  for (size_t chunk : {size_t{1} << 20, size_t{65536}, overlong.size() + 100}) {
    EXPECT_EQ(ReadInChunks("{\"t\": 1}\n" + overlong, chunk).values.at("t"), 1) << chunk;
    EXPECT_EQ(ReadInChunks("{\"t\": 1}\n" + overlong + "{\"t\": 2}\n", chunk).values.at("t"), 2) << chunk;
  }
}

// The output is read in blocks, and ^ and $ still mean its start and end.
TEST(PrintedMetricsTest, RegexAnchorsMeanTheWholeOutput) {
  const std::vector<std::pair<std::string, std::regex>> regex = {{"first", std::regex("^step ([0-9]+)")},
                                                                  {"last", std::regex("step ([0-9]+)\\n$")}};
  std::string out;
  for (int i = 1; i <= 200000; ++i) out += "step " + std::to_string(i) + "\n";
  ASSERT_GT(out.size(), size_t{1} << 20);
  for (size_t chunk : {size_t{65536}, out.size()}) {
    PrintedMetrics m = ReadInChunks(out, chunk, regex);
    EXPECT_EQ(m.values.at("first"), 1) << chunk;
    EXPECT_EQ(m.values.at("last"), 200000) << chunk;
  }
}

// A line that looks like the result and is not JSON says why, where "it reports nothing" sent
// the user looking for a missing print; a byte-order mark before the line is no reason.
TEST(PrintedMetricsTest, ALineThatLooksLikeJsonAndIsNotSaysWhy) {
  PrintedMetrics m = Parse("{\"t\": 10, \"device\": \"Ger\xe4t 0\"}\n");
  EXPECT_TRUE(m.values.empty());
  EXPECT_NE(m.json_problem.find("not JSON"), std::string::npos) << m.json_problem;
  EXPECT_NE(m.json_problem.find("UTF-8"), std::string::npos) << m.json_problem;
  EXPECT_EQ(m.json_problem.find("json.exception"), std::string::npos) << m.json_problem;
  EXPECT_EQ(Parse("\xEF\xBB\xBF{\"t\": 4}\n").values.at("t"), 4);
  // Progress rewritten with \r before the result, on the same line; \r\n line ends.
  EXPECT_EQ(Parse("step 1/3\rstep 3/3\r{\"t\": 6}\r\n").values.at("t"), 6);
  // An earlier good line wins over a later broken one, and leaves no problem to report.
  m = Parse("{\"t\": 5}\n{\"t\": }\n");
  EXPECT_EQ(m.values.at("t"), 5);
  EXPECT_TRUE(m.json_problem.empty());
}

}  // namespace
}  // namespace cprof::tune
