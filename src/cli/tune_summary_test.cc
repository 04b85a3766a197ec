// tune's progress lines (TuneProgressPrinter) and JSON result (TuneSummaryJson) on hand-made trials.
#include "cli/tune_summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "tune/space_file.h"

namespace cprof::cli {
namespace {

using tune::Progress;
using tune::TrialState;
using tune::TrialSummary;

// A configuration stopped early by racing says so on its line: only the JSON's reason did.
TEST(TuneProgressTest, ACompleteTrialsLineSaysWhyItHasFewerRepeats) {
  std::ostringstream err;
  tune::ProgressFn print = TuneProgressPrinter(err, {{"latency_ms", false}});
  TrialSummary t;
  t.number = 4;
  t.state = TrialState::kComplete;
  t.metrics["latency_ms"] = 12.5;
  t.params["x"] = "3";
  t.reason = "raced out after 2 of 3 repeats";
  Progress p;
  p.evaluations = 5;
  p.budget = 20;
  p.trial = &t;
  p.best_value = 10.0;
  print(p);
  t.reason.clear();
  print(p);
  std::istringstream lines(err.str());
  std::string raced, full;
  std::getline(lines, raced);
  std::getline(lines, full);
  EXPECT_NE(raced.find("[5/20] trial 4 latency_ms=12.5 (raced out after 2 of 3 repeats) | best 10"), std::string::npos)
      << raced;
  EXPECT_NE(full.find("[5/20] trial 4 latency_ms=12.5 | best 10"), std::string::npos) << full;
}

// Values keep the type the space gives them: quoted categorical values that look like numbers
// came back as 7, 1.1 and 1000.0 ("007", "1.10", "1e3"), not the values that were run.
TEST(TuneSummaryJsonTest, ParametersKeepTheirTypes) {
  auto file = tune::ParseSpaceYaml(
      "parameters:\n"
      "  - {name: tag, type: categorical, values: [\"007\", \"1.10\", \"1e3\", 32, 0.5], default: \"007\"}\n"
      "  - {name: n, type: int, low: 1, high: 64}\n"
      "  - {name: lr, type: float, low: 0.001, high: 1, log: true}\n",
      "s.yaml");
  ASSERT_TRUE(file.ok()) << file.status().message();
  tune::TuneResult r;
  r.objectives = {{"t", false}};
  for (const char* tag : {"007", "1.10", "1e3", "32", "0.5"}) {
    TrialSummary t;
    t.number = static_cast<int64_t>(r.trials.size());
    t.state = TrialState::kComplete;
    t.metrics["t"] = 10.0 - static_cast<double>(r.trials.size());
    t.params = {{"tag", tag}, {"n", "8"}, {"lr", "0.01"}};
    r.trials.push_back(t);
  }
  r.best = 0;
  r.evaluations = static_cast<int64_t>(r.trials.size());
  tune::TuneOptions options;
  const nlohmann::json doc = nlohmann::json::parse(TuneSummaryJson({r, options, file->space, "memory"}));
  EXPECT_EQ(doc["best_params"]["tag"], "007");
  std::vector<nlohmann::json> tags;
  for (const auto& h : doc["history"]) tags.push_back(h["params"]["tag"]);
  EXPECT_EQ(tags, (std::vector<nlohmann::json>{"007", "1.10", "1e3", 32, 0.5}));
  EXPECT_EQ(doc["best_params"]["n"], 8);
  EXPECT_TRUE(doc["best_params"]["n"].is_number_integer());
  EXPECT_DOUBLE_EQ(doc["best_params"]["lr"].get<double>(), 0.01);
  EXPECT_EQ(doc["best_value_source"], "search");

  // A default whose trial failed has no value, and no source beside it (it said "search").
  TrialSummary failed;
  failed.number = static_cast<int64_t>(r.trials.size());
  failed.state = TrialState::kFailed;
  failed.params = {{"tag", "007"}, {"n", "1"}, {"lr", "0.001"}};
  r.trials.push_back(failed);
  r.default_trial = r.trials.size() - 1;
  const nlohmann::json with_default = nlohmann::json::parse(TuneSummaryJson({r, options, file->space, "memory"}));
  EXPECT_TRUE(with_default["default_value"].is_null()) << with_default.dump();
  EXPECT_TRUE(with_default["default_value_source"].is_null()) << with_default.dump();
}

}  // namespace
}  // namespace cprof::cli
