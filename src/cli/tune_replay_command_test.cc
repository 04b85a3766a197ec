// `cann-profiler tune --replay` through the real binary: the JSON line and progress of a replay,
// a cache that is not JSON, and a cache whose objective is a rate (maximized) or of no known
// direction. The rest of the tune CLI: tune_command_test.cc.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli/cli_test_util.h"
#include "cli/tune_command_test_util.h"

namespace cprof::cli {
namespace {

using namespace tune_test;  // NOLINT: the shared fixtures and helpers of the tune CLI tests

TEST(TuneCommandTest, ReplayJsonIsOneLineAndReproducible) {
  auto run = [&] {
    ProcessResult r = Tune({"--replay", kPnpoly, "--budget", "20", "--seed", "3", "--json", "--quiet"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return r;
  };
  ProcessResult a = run(), b = run();
  EXPECT_EQ(std::count(a.out.begin(), a.out.end(), '\n'), 1) << "--json prints exactly one line";
  nlohmann::json ja = LastJsonLine(a.out), jb = LastJsonLine(b.out);
  ASSERT_TRUE(ja.is_object()) << a.out;
  EXPECT_EQ(ja["schema_version"], 1);
  EXPECT_EQ(ja["trials"], 20);
  EXPECT_TRUE(ja["best_value"].is_number());
  EXPECT_TRUE(ja["best_params"].is_object());
  EXPECT_TRUE(ja["best_params"]["block_size_x"].is_number());
  EXPECT_EQ(ja["best_value"], jb["best_value"]);
  EXPECT_EQ(ja["best_params"], jb["best_params"]);
  EXPECT_EQ(ja["history"], jb["history"]);
}

// Progress has one line per evaluation: configurations absent from the replay cache (free, and
// more numerous than evaluations on gemm-like spaces) are counted into the next line.
TEST(TuneCommandTest, ProgressHasOneLinePerEvaluation) {
  ProcessResult r = Tune({"--replay", kGemm, "--budget", "8", "--seed", "3", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = LastJsonLine(r.out);
  ASSERT_TRUE(j.is_object()) << r.out;
  int lines = 0, infeasible_mentioned = 0;
  std::istringstream err(r.err);
  for (std::string line; std::getline(err, line);) {
    if (line.rfind("[", 0) != 0) continue;
    ++lines;
    EXPECT_EQ(line.find("trial") != std::string::npos && line.find("infeasible:") != std::string::npos, false)
        << line;
    size_t at = line.find("(after ");
    if (at != std::string::npos) infeasible_mentioned += std::stoi(line.substr(at + 7));
  }
  EXPECT_EQ(lines, j["trials"].get<int>()) << r.err;  // trials counts evaluations, failed ones too
  EXPECT_GT(j["infeasible"].get<int>(), 0) << "most of gemm's space is absent from its cache";
  EXPECT_LE(infeasible_mentioned, j["infeasible"].get<int>());
  EXPECT_GT(infeasible_mentioned, 0) << r.err;
}

// A replay file that is not JSON is read as a Kernel Tuner cache and says where it breaks (it was
// read as a YAML space: "expected a mapping with 'parameters'").
TEST(TuneCommandTest, ReplayOfAFileThatIsNotJsonSaysWhere) {
  fs::path dir = TestDir("replay_not_json");
  std::ofstream(dir / "cache.json") << "garbage\n";
  ProcessResult r = Tune({"--replay", (dir / "cache.json").string(), "--budget", "2"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("cache.json: not a Kernel Tuner cache or JSON space: parse error at line 1, column 1"),
            std::string::npos)
      << r.err;
}

// A cache whose objective is a rate: the replay reports it under its name and maximizes it, as
// Kernel Tuner does for GFLOP/s; an objective of no known direction must be given one.
TEST(TuneCommandTest, ReplayMaximizesACacheOfARate) {
  fs::path dir = TestDir("replay_rate");
  nlohmann::json cache = {{"tune_params_keys", {"bx", "tile"}},
                          {"tune_params", {{"bx", {16, 32, 64, 128}}, {"tile", {1, 2, 4}}}},
                          {"objective", "GFLOP/s"},
                          {"cache", nlohmann::json::object()}};
  auto records = [&](const std::string& metric) {
    cache["objective"] = metric;
    for (int bx : {16, 32, 64, 128})
      for (int tile : {1, 2, 4})  // fastest at bx 64, tile 2: 600 GFLOP/s
        cache["cache"][std::to_string(bx) + "," + std::to_string(tile)] = {
            {"bx", bx},
            {"tile", tile},
            {"time", 1.0},
            {metric, 600.0 - std::abs(bx - 64) - 50.0 * std::abs(tile - 2)}};
    return cache.dump();
  };
  std::ofstream(dir / "rate.json") << records("GFLOP/s");
  ProcessResult r = Tune({"--replay", (dir / "rate.json").string(), "--budget", "12", "--seed", "1", "--json",
                          "--quiet", "--report", ""});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = LastJsonLine(r.out);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_DOUBLE_EQ(j["best_value"].get<double>(), 600.0);  // all 12 measured: the highest, not the lowest
  EXPECT_EQ(j["best_params"]["bx"], 64);
  std::ofstream(dir / "score.json") << records("score");
  r = Tune({"--replay", (dir / "score.json").string(), "--budget", "2", "--quiet"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("score.json: the cache's objective 'score' has no known direction (the file has no "
                       "objective_higher_is_better): give --objective 'score:min' or 'score:max'"),
            std::string::npos)
      << r.err;
  r = Tune({"--replay", (dir / "score.json").string(), "--budget", "12", "--seed", "1", "--objective",
            "score:min", "--json", "--quiet", "--report", ""});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_DOUBLE_EQ(LastJsonLine(r.out)["best_value"].get<double>(), 436.0);  // bx 128, tile 4: 600 - 64 - 100
  r = Tune({"--replay", (dir / "rate.json").string(), "--budget", "2", "--replay_noise", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(
                "rate.json: --replay_noise draws one of a record's `times`, the runs of a time; this cache's "
                "objective is 'GFLOP/s'"),
            std::string::npos)
      << r.err;
  r = Tune({"--replay", (dir / "score.json").string(), "--budget", "2", "--objective", "time", "--quiet"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--objective 'time': a replay reports one metric, 'score' (the cache's objective)"),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace cprof::cli
