// `visualize` run in-process through RunCli on a real Kineto fixture: the HTML page, the flame
// graph exports (folded, speedscope), --diagnosis, --baseline, --time_range, and bad input
// (exit code 2, no output left behind).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"
#include "cli/cli_test_util.h"
#include "report/visualize/web_bundle.h"

namespace cprof::cli {
namespace {

namespace fs = std::filesystem;

const std::string kH100 =
    std::string(CPROF_FIXTURES_DIR) + "/kineto/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz";
const std::string kMi300 =
    std::string(CPROF_FIXTURES_DIR) + "/kineto/tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz";

using namespace cli_test;

std::string Read(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

class VisualizeCommandTest : public testing::Test {
 protected:
  void SetUp() override {
    if (!fs::exists(kH100)) GTEST_SKIP() << "fixture missing: " << kH100;
    dir_ = fs::temp_directory_path() / ("cprof_visualize_test_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }

  fs::path dir_;
};

TEST_F(VisualizeCommandTest, WritesThePage) {
  if (!GetWebBundle().available) GTEST_SKIP() << "built without the web front end";
  Result r = RunArgs({"visualize", "--trace", kH100, "--view", "timeline,flamegraph,heatmap", "--output",
                      Path("map.html")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("map.html"), std::string::npos);
  std::string html = Read(Path("map.html"));
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_NE(html.find("id=\"cprof-data\""), std::string::npos);
  EXPECT_NE(html.find("default-src 'none'"), std::string::npos);
  // Much smaller than the trace as JSON (the fixture is ~4 MB of JSON once inflated).
  EXPECT_LT(html.size(), 1'000'000u);
}

TEST_F(VisualizeCommandTest, FindingsBaselineAndTimeRange) {
  if (!GetWebBundle().available) GTEST_SKIP() << "built without the web front end";
  std::ofstream(Path("r.yaml")) << "findings:\n  - category: device_idle\n    title: idle\n"
                                   "    evidence:\n      - {name: \"ProfilerStep#6\", ts_ns: 0}\n";
  Result r = RunArgs({"visualize", "--trace", kH100, "--diagnosis", Path("r.yaml"), "--baseline", kMi300,
                      "--time-range", "0ms:100s", "-o", Path("m.html")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1 findings (1 evidence events located)"), std::string::npos) << r.out;
}

// A diagnose report of one trace shown on another: a warning naming both hashes; none on its own.
TEST_F(VisualizeCommandTest, FindingsOfAnotherTraceAreAWarning) {
  if (!GetWebBundle().available) GTEST_SKIP() << "built without the web front end";
  Result diag = RunArgs({"diagnose", "--trace", kH100, "-o", Path("h100.yaml")});
  ASSERT_EQ(diag.code, 0) << diag.err;
  Result same = RunArgs({"visualize", "--trace", kH100, "--diagnosis", Path("h100.yaml"), "-o", Path("a.html")});
  ASSERT_EQ(same.code, 0) << same.err;
  EXPECT_EQ(same.err.find("diagnosed another trace"), std::string::npos) << same.err;
  Result other = RunArgs({"visualize", "--trace", kMi300, "--diagnosis", Path("h100.yaml"), "-o", Path("b.html")});
  ASSERT_EQ(other.code, 0) << other.err;
  EXPECT_NE(other.err.find("h100.yaml diagnosed another trace (content_hash 0x"), std::string::npos) << other.err;
}

TEST_F(VisualizeCommandTest, ExportsFoldedAndSpeedscope) {
  Result r = RunArgs({"visualize", "--trace", kH100, "--view", "flamegraph", "--format", "folded", "-o",
                      Path("f.folded")});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string folded = Read(Path("f.folded"));
  ASSERT_FALSE(folded.empty());
  // Every line is "frames weight".
  std::istringstream lines(folded);
  for (std::string line; std::getline(lines, line);) {
    size_t space = line.rfind(' ');
    ASSERT_NE(space, std::string::npos) << line;
    EXPECT_GT(std::stoll(line.substr(space + 1)), 0) << line;
  }
  EXPECT_NE(folded.find("ProfilerStep#*"), std::string::npos);

  r = RunArgs({"visualize", "--trace", kH100, "--view", "flamegraph", "-o", Path("f.speedscope.json")});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(Read(Path("f.speedscope.json")));
  EXPECT_EQ(doc["$schema"], "https://www.speedscope.app/file-format-schema.json");
  EXPECT_GT(doc["profiles"].size(), 1u);
  EXPECT_GT(doc["shared"]["frames"].size(), 10u);
}

// A Kineto trace has no CPU samples: the folded export is empty, and stderr says why.
TEST_F(VisualizeCommandTest, AnEmptyFlameGraphIsAWarning) {
  Result r = RunArgs({"visualize", "--trace", kH100, "--view", "flamegraph", "--flame_source", "samples", "--format",
                      "folded", "-o", Path("f.folded")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(Read(Path("f.folded")).empty());
  EXPECT_NE(r.err.find("warning: empty flame graph: " + kH100 + " has no CPU samples (--flame_source samples)"),
            std::string::npos)
      << r.err;
  r = RunArgs({"visualize", "--trace", kH100, "--view", "flamegraph", "--format", "folded", "-o", Path("g.folded")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err.find("empty flame graph"), std::string::npos) << r.err;
}

TEST_F(VisualizeCommandTest, BadInputIsExitCode2WithNoOutput) {
  const std::vector<std::vector<std::string>> cases = {
      {"visualize", "--trace", kH100, "--view", "timeline,bogus", "-o", Path("x.html")},
      {"visualize", "--trace", kH100, "--time_range", "100s:200s", "-o", Path("x.html")},
      {"visualize", "--trace", kH100, "--time_range", "soon", "-o", Path("x.html")},
      {"visualize", "--trace", kH100, "--diagnosis", Path("missing.yaml"), "-o", Path("x.html")},
      {"visualize", "--trace", kH100, "--view", "timeline", "--format", "folded", "-o", Path("x.html")},
      {"visualize", "--trace", kH100, "-o", Path("x.pdf")},
      {"visualize", "--trace", Path("no_such_trace.json"), "-o", Path("x.html")},
      {"visualize", "--trace", kH100, "--flame_source", "bogus", "-o", Path("x.html")},  // checked for html too
  };
  for (const auto& args : cases) {
    Result r = RunArgs(args);
    EXPECT_EQ(r.code, 2) << args[3] << ": " << r.err;
    EXPECT_FALSE(r.err.empty());
    EXPECT_FALSE(fs::exists(Path("x.html")));
  }
}

}  // namespace
}  // namespace cprof::cli
