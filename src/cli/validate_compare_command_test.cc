// `validate` and `compare` in-process (RunCli) on the HTA trace_diff pair: their JSON documents
// (schema_version, the documented fields), and bad input (exit 2, the file named).
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"
#include "cli/cli_test_util.h"

namespace cprof::cli {
namespace {

const std::string kControl = std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/trace_diff/control/control.json.gz";
const std::string kTest = std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/trace_diff/test/test.json.gz";

using namespace cli_test;
namespace fs = std::filesystem;

TEST(ValidateCommandTest, JsonDocumentHasVerdictAndMetrics) {
  Result r = RunArgs({"validate", "--before", kControl, "--after", kTest, "--metrics", "step_time", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  ASSERT_TRUE(doc["metrics"].is_array());
  ASSERT_EQ(doc["metrics"].size(), 1u);
  const nlohmann::json& m = doc["metrics"][0];
  EXPECT_EQ(m["name"], "step_time");
  for (const char* key : {"before", "after", "change_pct", "ci", "p_value", "effect_size", "n_before", "n_after", "verdict"})
    EXPECT_TRUE(m.contains(key)) << key;
  // The test run's steps are slower (the memcpy regression): a significant regression.
  EXPECT_EQ(m["verdict"], "regressed");
  EXPECT_EQ(doc["verdict"], "regressed");
}

TEST(ValidateCommandTest, FailOnRegressionExitsOneAndMissingRunExitsTwo) {
  EXPECT_EQ(RunArgs({"validate", "--before", kControl, "--after", kTest, "--metrics", "step_time",
                     "--fail_on_regression", "--json"})
                .code,
            1);
  Result bad = RunArgs({"validate", "--before", "/nonexistent/run.json", "--after", kTest});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("/nonexistent/run.json"), std::string::npos) << bad.err;
}

// A folder of repeated runs: a file named like a trace that is not one is an error naming it, not
// a run silently left out (which changed n and the verdict); other files (a log) are passed over.
TEST(ValidateCommandTest, ABrokenRunInAFolderIsAnErrorNotOneRunFewer) {
  const fs::path dir = TestDir("validate_runs");
  fs::create_directories(dir / "after");
  fs::copy_file(kTest, dir / "after" / "r1.json.gz");
  fs::copy_file(kTest, dir / "after" / "r2.json.gz");
  std::ofstream(dir / "after" / "notes.txt") << "run on node 3\n";
  Result ok = RunArgs({"validate", "--before", kControl, "--after", (dir / "after").string(), "--json"});
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_EQ(nlohmann::json::parse(ok.out)["metrics"][0]["n_after"], 2);

  std::ofstream(dir / "after" / "r3.json") << "not json\n";
  Result bad = RunArgs({"validate", "--before", kControl, "--after", (dir / "after").string()});
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_NE(bad.err.find("r3.json"), std::string::npos) << bad.err;
  fs::remove_all(dir);
}

TEST(ValidateCommandTest, CountsThatCannotBeAreRefused) {
  for (const std::vector<std::string>& extra : std::vector<std::vector<std::string>>{
           {"--items_per_step", "0"}, {"--items_per_step", "-3"}, {"--resamples", "-1"},
           {"--metrics", "step_time,step_time"}}) {
    std::vector<std::string> args = {"validate", "--before", kControl, "--after", kTest};
    args.insert(args.end(), extra.begin(), extra.end());
    Result r = RunArgs(args);
    EXPECT_EQ(r.code, 2) << extra[0] << " " << extra[1] << ": " << r.out;
    EXPECT_NE(r.err.find(extra[0]), std::string::npos) << r.err;
  }
}

TEST(CompareCommandTest, JsonDocumentListsOpsAndTopRegressions) {
  Result r = RunArgs({"compare", "--baseline", kControl, "--target", kTest, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_FALSE(doc.dump().find("Memcpy DtoD") == std::string::npos);
}

// Window errors name the flag the user typed; syntax errors come before the (long) imports.
TEST(CompareCommandTest, WindowErrorsNameTheFlagTyped) {
  Result r = RunArgs({"compare", "--baseline", kControl, "--target", kTest, "--target_time_range", "50s:60s"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--target_time_range 50s:60s: starts after the trace ends"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("(target)"), std::string::npos) << r.err;
  r = RunArgs({"compare", "--baseline", "/nonexistent/a.json", "--target", "/nonexistent/b.json",
               "--baseline_time_range", "1:2s"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--baseline_time_range: '1' is not a duration: give a unit, e.g. 1s or 1ms"), std::string::npos)
      << r.err;
  r = RunArgs({"compare", "--baseline", "/nonexistent/a.json", "--target", "/nonexistent/b.json", "--time_range",
               "0s:1s,2"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--time_range (its target part): '2' is not a time range"), std::string::npos) << r.err;
}

// Kernel names that share their first 110+ characters stay distinct in the Markdown tables.
TEST(CompareCommandTest, LongNamesCutAlikeStayDistinct) {
  const fs::path dir = TestDir("compare_names");
  std::string prefix = "void my_kernel<float";
  for (int i = 0; i < 30; ++i) prefix += ", float";
  for (const auto& [file, dur] : {std::pair<const char*, int>{"a.json", 10}, {"b.json", 20}}) {
    std::string events;
    for (int i = 0, ts = 0; i < 20; ++i) {
      for (const char* last : {"1>", "2>"}) {
        events += fmt::format("{}{{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"{}, {}(int)\",\"ts\":{},\"dur\":{},"
                              "\"pid\":0,\"tid\":7}}",
                              events.empty() ? "" : ",", prefix, last, ts, dur);
        ts += 2 * dur;
      }
    }
    std::ofstream((dir / file).string()) << "{\"traceEvents\":[" << events << "]}";
  }
  Result r = RunArgs({"compare", "--baseline", (dir / "a.json").string(), "--target", (dir / "b.json").string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find(", float, 1> #"), std::string::npos) << r.out;  // the differing end is kept
  EXPECT_NE(r.out.find(", float, 2> #"), std::string::npos) << r.out;
  fs::remove_all(dir);
}

// --help and the report name the same per-op correction (the help once said Holm; compare
// adjusts with Benjamini-Hochberg, as README and docs/validate.md say).
TEST(CompareCommandTest, AlphaHelpNamesTheCorrectionTheReportUses) {
  Result help = RunArgs({"compare", "--help"});
  ASSERT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("Benjamini-Hochberg"), std::string::npos) << help.out;
  EXPECT_EQ(help.out.find("Holm"), std::string::npos) << help.out;
  Result md = RunArgs({"compare", "--baseline", kControl, "--target", kTest});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(md.out.find("Benjamini-Hochberg"), std::string::npos);
}

}  // namespace
}  // namespace cprof::cli
