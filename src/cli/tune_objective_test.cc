// How tune reads the objective from what a trial prints, through the real binary: mistakes in
// the objective and a refused command line stop the study; an unnamed objective is the one
// number the command prints.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"
#include "cli/tune_command_test_util.h"

namespace cprof::cli {
namespace {

using namespace tune_test;  // NOLINT: the shared fixtures and helpers of the tune CLI tests

// Mistakes that failed every trial of the budget and exited 1 now stop at once with exit 2: a
// misspelt objective (its trial left for the rerun), and a command line the program refuses.
// A NaN objective fails its trial saying so (it said "no metrics in the output").
TEST(TuneCommandTest, ObjectiveMistakesAndARefusedCommandLineStopTheStudy) {
  fs::path dir = TestDir("mistakes");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 0}\n";
  std::ofstream(dir / "bench.py") << "import argparse, json\n"
                                     "p = argparse.ArgumentParser()\n"
                                     "p.add_argument('--x', type=int)\n"
                                     "a = p.parse_args()\n"
                                     "print(json.dumps({'t': float('nan') if a.x == 1 else 1.0 + a.x, 'mem': 3}))\n";
  auto tune = [&](std::vector<std::string> args) {
    std::vector<std::string> all = {"--space", "space.yaml", "--budget", "4", "--remeasure", "0",
                                    "--storage", "sqlite://s.db"};
    all.insert(all.end(), args.begin(), args.end());
    return Tune(all, dir.string());
  };
  ProcessResult r = tune({"--objective", "tt:min", "--", "/usr/bin/python3", "bench.py", "--x", "{x}"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no objective 'tt' in the output (it reports: mem, t), and no trial of this study has "
                       "reported it"),
            std::string::npos)
      << r.err;
  std::vector<std::pair<std::string, std::string>> trials = Trials((dir / "s.db").string());
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].second, "running");  // left for the rerun, not failed

  r = tune({"--objective", "t:min", "--json", "--", "/usr/bin/python3", "bench.py", "--x", "{x}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = LastJsonLine(r.out);
  EXPECT_EQ(j["failed"], 1);
  for (const auto& h : j["history"])
    if (h["params"]["x"] == 1) {
      EXPECT_EQ(h["reason"], "objective 't' is NaN") << h.dump();
    }

  r = tune({"--objective", "t:min", "--", "/usr/bin/python3", "bench.py", "--x", "{x}", "--bogus"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the first 3 trials, the default configuration among them, failed the same way: exit code "
                       "2: bench.py: error: unrecognized arguments: --bogus"),
            std::string::npos)
      << r.err;
  // The third trial's line counts it (reopening the three for the rerun made it "[0/4]").
  EXPECT_NE(r.err.find("[3/4] trial 2 failed"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("[0/4]"), std::string::npos) << r.err;
}

// Without --objective, the objective is the one number printed: a run name or a nested object
// beside it ({"t": 2, "name": "run1"}) made "reports several metrics (name, t)".
TEST(TuneCommandTest, AnUnnamedObjectiveIsTheOnlyNumberPrinted) {
  fs::path dir = TestDir("only_number");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 2}\n";
  std::ofstream(dir / "bench.sh") << "echo \"{\\\"t\\\": $1, \\\"name\\\": \\\"run$1\\\", \\\"cfg\\\": {\\\"a\\\": 1}}\"\n";
  ProcessResult r = Tune({"--space", "space.yaml", "--budget", "4", "--remeasure", "0", "--storage", "memory",
                          "--report", "", "--json", "--", "/bin/sh", "bench.sh", "{x}"},
                         dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = LastJsonLine(r.out);
  EXPECT_EQ(j["best_value"], 0) << r.out;
  EXPECT_EQ(j["best_params"]["x"], 0) << r.out;
  // Two numbers are still ambiguous.
  std::ofstream(dir / "bench.sh") << "echo \"{\\\"t\\\": $1, \\\"mem\\\": 3}\"\n";
  r = Tune({"--space", "space.yaml", "--budget", "2", "--remeasure", "0", "--storage", "memory", "--report", "",
            "--", "/bin/sh", "bench.sh", "{x}"},
           dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("reports several metrics (mem, t)"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace cprof::cli
