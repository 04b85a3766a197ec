// Commands run in-process through RunCli on real fixtures: summary (text and JSON, both flag
// spellings, --time_range), info, convert; the help of cann-auto-tune.
#include "cli/cli_app.h"
#include "cli/cli_test_util.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace cprof::cli {
namespace {

namespace fs = std::filesystem;

const std::string kH100 =
    std::string(CPROF_FIXTURES_DIR) + "/kineto/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz";

using namespace cli_test;

TEST(CliAppTest, SummaryJsonHasTheDocumentedFields) {
  Result r = RunArgs({"summary", kH100, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["kind"], "summary");
  EXPECT_FALSE(doc["source_format"].get<std::string>().empty());
  EXPECT_GT(doc["tracks"]["total"].get<int>(), 0);
  EXPECT_FALSE(doc["top_ops"]["cpu"]["by_self"].empty());
  EXPECT_FALSE(doc["top_ops"]["device"]["by_total"].empty());
  ASSERT_EQ(doc["steps"].size(), 1u);
  EXPECT_EQ(doc["steps"][0]["id"], 6);
  EXPECT_TRUE(doc["steps"][0]["start_ns"].is_number_integer());
  EXPECT_TRUE(doc["steps"][0]["dur_ns"].is_number_integer());
  const nlohmann::json& tl = doc["gpu_timeline"];
  ASSERT_TRUE(tl.is_object());
  for (const char* key : {"computation_time", "exposed_comm_time", "exposed_memcpy_time", "busy_time", "idle_time",
                          "total_time"}) {
    EXPECT_TRUE(tl.contains(key)) << key;
  }
  EXPECT_NEAR(tl["total_time"].get<double>(), 3.907824951171875, 0.005 * 3.9078);  // TraceLens' ms
  EXPECT_TRUE(doc["import_stats"].is_array());
}

TEST(CliAppTest, SummaryTextAndTopN) {
  Result r = RunArgs({"summary", kH100, "--top", "3"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("device time breakdown"), std::string::npos);
  EXPECT_NE(r.out.find("top host ops by self time"), std::string::npos);
  EXPECT_NE(r.out.find("ProfilerStep#6"), std::string::npos);
}

TEST(CliAppTest, BothFlagSpellingsGiveTheSameResult) {
  Result underscore = RunArgs({"summary", kH100, "--json", "--time_range", "0ms:2ms"});
  Result dash = RunArgs({"summary", kH100, "--json", "--time-range", "0ms:2ms"});
  Result dash_eq = RunArgs({"summary", kH100, "--json", "--time-range=0ms:2ms"});
  ASSERT_EQ(underscore.code, 0) << underscore.err;
  EXPECT_EQ(dash.code, 0) << dash.err;
  EXPECT_EQ(underscore.out, dash.out);
  EXPECT_EQ(underscore.out, dash_eq.out);
  Result whole = RunArgs({"summary", kH100, "--json"});
  EXPECT_NE(underscore.out, whole.out);  // the window changes the result
  nlohmann::json doc = nlohmann::json::parse(underscore.out);
  EXPECT_TRUE(doc.contains("window"));
}

TEST(CliAppTest, BadTimeRangeIsBadInput) {
  Result r = RunArgs({"summary", kH100, "--time_range", "5:10"});  // no units
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--time_range"), std::string::npos) << r.err;
  EXPECT_EQ(RunArgs({"summary", kH100, "--time_range", "2ms:1ms"}).code, 2);
}

TEST(CliAppTest, InfoJson) {
  Result r = RunArgs({"info", kH100, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["format"], "json");
  EXPECT_GT(doc["size_bytes"].get<int64_t>(), 0);
  EXPECT_GT(doc["tables"]["slices"].get<int64_t>(), 0);
  EXPECT_GT(doc["duration_ns"].get<int64_t>(), 0);
  EXPECT_TRUE(doc["metadata"].is_object());
}

TEST(CliAppTest, ConvertWritesTheOutputOrNothing) {
  fs::path dir = fs::temp_directory_path() / ("cprof_cli_convert_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path json_out = dir / "h100.json";
  Result r = RunArgs({"convert", kH100, json_out.string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(json_out));
  Result bad_format = RunArgs({"convert", kH100, (dir / "x.out").string(), "--format", "nope"});
  EXPECT_EQ(bad_format.code, 2);
  EXPECT_FALSE(fs::exists(dir / "x.out"));
  EXPECT_EQ(r.err.find("CPU samples"), std::string::npos) << "h100 has no samples: " << r.err;
  // Chrome JSON keeps no CPU samples: converting a trace that has them says so on stderr.
  const std::string nsys = std::string(CPROF_FIXTURES_DIR) + "/nsys/saxpy-mpi-cuda.sqlite";
  Result lossy = RunArgs({"convert", nsys, (dir / "saxpy.json").string()});
  EXPECT_EQ(lossy.code, 0) << lossy.err;
  EXPECT_NE(lossy.err.find("5451 CPU samples"), std::string::npos) << lossy.err;
  Result kept = RunArgs({"convert", nsys, (dir / "saxpy.pb").string()});
  EXPECT_EQ(kept.err.find("CPU samples"), std::string::npos) << kept.err;
  fs::remove_all(dir);
}

// Run as cann-auto-tune (the installed name that implies `tune`), the help names that program: it
// said "Usage: cann-profiler tune", which is not what the user ran.
TEST(CliAppTest, CannAutoTuneHelpNamesItself) {
  std::ostringstream out, err;
  ASSERT_EQ(RunCli({"--help"}, out, err, "cann-auto-tune"), 0) << err.str();
  EXPECT_NE(out.str().find("Usage: cann-auto-tune [OPTIONS]"), std::string::npos) << out.str();
  EXPECT_EQ(out.str().find("cann-profiler tune"), std::string::npos) << out.str();
  EXPECT_NE(out.str().find("--objective"), std::string::npos);
  std::ostringstream version, version_err;
  ASSERT_EQ(RunCli({"--version"}, version, version_err, "cann-auto-tune"), 0) << version_err.str();
  EXPECT_NE(version.str().find("cann-profiler 0."), std::string::npos) << version.str();
  std::ostringstream out2, err2;
  ASSERT_EQ(RunCli({"tune", "--help"}, out2, err2), 0) << err2.str();
  EXPECT_NE(out2.str().find("Usage: cann-profiler tune [OPTIONS]"), std::string::npos) << out2.str();
}

// A stray word before `--` names itself: `cann-auto-tune tune ... -- ./x a b` (tune is implied)
// said "The following arguments were not expected: b a ./x", the real command listed backwards.
TEST(CliAppTest, AStrayWordBeforeTheCommandIsNamed) {
  std::ostringstream out, err;
  EXPECT_EQ(RunCli({"tune", "--storage", "memory", "--", "./x", "a", "b"}, out, err, "cann-auto-tune"), 2);
  EXPECT_NE(err.str().find("cann-auto-tune: error: unexpected word 'tune' before `--`"), std::string::npos)
      << err.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(RunCli({"tune", "foo", "bar", "--storage", "memory", "--", "./x"}, out2, err2), 2);
  EXPECT_NE(err2.str().find("cann-profiler: error: unexpected words 'foo' 'bar' before `--`"), std::string::npos)
      << err2.str();
}

// Extra words name themselves in the order typed, without the `--` that ended the options: CLI11
// said "The following arguments were not expected: /b.pb --".
TEST(CliAppTest, ExtraWordsAreNamedWithoutTheDashes) {
  std::ostringstream out, err;
  EXPECT_EQ(RunCli({"summary", "--", "/nonexistent/a.pb", "/nonexistent/b.pb", "c.pb"}, out, err), 2);
  EXPECT_NE(err.str().find("error: unexpected arguments '/nonexistent/b.pb' 'c.pb'"), std::string::npos)
      << err.str();
  EXPECT_EQ(err.str().find("--"), err.str().find("--help")) << err.str();
  std::ostringstream out2, err2;
  EXPECT_EQ(RunCli({"summary", "/nonexistent/a.pb", "b.pb"}, out2, err2), 2);
  EXPECT_NE(err2.str().find("error: unexpected argument 'b.pb'"), std::string::npos) << err2.str();
}

// The words after `--` reach the program as written: CLI11 read "[64,128]" as the list 64 128,
// "[]" as nothing and "[a b]" as "a b", and after `--env A=B` took the target's `--layers` for an
// option, for tune and trace alike.
TEST(CliAppTest, TheCommandAfterTheDashesIsPassedVerbatim) {
  const fs::path dir = TestDir("cli_verbatim");
  std::ofstream(dir / "space.yaml") << "parameters: [{name: x, type: int, low: 1, high: 4, default: 3}]\n";
  std::ofstream(dir / "args.sh") << "printf '%s\\n' \"$@\" > \"$ARGS_OUT\"\necho '{\"t\": 1}'\n";
  const std::vector<std::string> words = {"[{x},{x}]", "--layers", "[64,128]", "model.dims=[1,2]", "[a b]", "[]"};
  const std::string expected = "[3,3]\n--layers\n[64,128]\nmodel.dims=[1,2]\n[a b]\n[]\n";
  std::vector<std::string> tune = {"tune",     "--space",  (dir / "space.yaml").string(), "--budget", "1",
                                   "--remeasure", "0", "--storage", "memory", "--report", "", "-q",
                                   "--env", "ARGS_OUT=" + (dir / "tune.txt").string(), "--",
                                   "/bin/sh", (dir / "args.sh").string()};
  tune.insert(tune.end(), words.begin(), words.end());
  std::ostringstream out, err;
  ASSERT_EQ(RunCli(tune, out, err), 0) << err.str();
  EXPECT_EQ(ReadFile(dir / "tune.txt"), expected);

  setenv("ARGS_OUT", (dir / "trace.txt").c_str(), 1);
  std::vector<std::string> trace = {"trace", "-o", (dir / "t.pb").string(), "--", "/bin/sh", (dir / "args.sh").string()};
  trace.insert(trace.end(), words.begin(), words.end());
  std::ostringstream out2, err2;
  const int rc = RunCli(trace, out2, err2);
  unsetenv("ARGS_OUT");
  ASSERT_EQ(rc, 0) << err2.str();
  std::string traced = expected;
  traced.replace(0, 5, "[{x},{x}]");  // trace has no placeholders
  EXPECT_EQ(ReadFile(dir / "trace.txt"), traced);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof::cli
