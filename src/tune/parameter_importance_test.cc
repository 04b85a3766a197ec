#include "tune/parameter_importance.h"

#include <random>

#include <gtest/gtest.h>

namespace cprof::tune {
namespace {

TrialSummary Trial(int64_t n, std::map<std::string, std::string> params, double value,
                   TrialState state = TrialState::kComplete) {
  TrialSummary t;
  t.number = n;
  t.params = std::move(params);
  t.state = state;
  if (state == TrialState::kComplete) t.metrics["latency_ms"] = value;
  return t;
}

// latency = 100 * (threads == 1 ? 2 : 1) * small noise from batch: threads must dominate.
TEST(ParameterImportance, TheParameterThatDrivesTheObjectiveRanksFirst) {
  std::vector<TrialSummary> trials;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> jitter(0.98, 1.02);
  int n = 0;
  for (const char* threads : {"1", "2", "4"})
    for (const char* batch : {"8", "16", "32", "64"})
      trials.push_back(Trial(n++, {{"threads", threads}, {"batch", batch}},
                             100 * (std::string(threads) == "1" ? 2.0 : 1.0) * jitter(rng)));
  trials.push_back(Trial(n++, {{"threads", "2"}, {"batch", "8"}}, 0, TrialState::kFailed));  // ignored
  std::vector<ParameterImportance> imp = ParameterImportances(trials, "latency_ms");
  ASSERT_EQ(imp.size(), 2u);
  EXPECT_EQ(imp[0].name, "threads");
  EXPECT_GT(imp[0].share, 0.95);
  EXPECT_GT(imp[0].eta_squared, 0.95);
  EXPECT_EQ(imp[0].levels, 3);
  EXPECT_NEAR(imp[0].share + imp[1].share, 1.0, 1e-12);
}

TEST(ParameterImportance, ManyNumericValuesAreBinned) {
  std::vector<TrialSummary> trials;
  for (int i = 0; i < 40; ++i)
    trials.push_back(Trial(i, {{"block", std::to_string(16 * (i + 1))}, {"unroll", i % 2 ? "on" : "off"}},
                           10.0 + i));  // grows with block only
  std::vector<ParameterImportance> imp = ParameterImportances(trials, "latency_ms");
  ASSERT_EQ(imp.size(), 2u);
  EXPECT_EQ(imp[0].name, "block");
  EXPECT_EQ(imp[0].levels, 8);
  EXPECT_GT(imp[0].eta_squared, 0.9);
  EXPECT_LT(imp[1].eta_squared, 0.05);
}

TEST(ParameterImportance, TooFewTrialsGiveNothing) {
  std::vector<TrialSummary> trials = {Trial(0, {{"a", "1"}}, 1), Trial(1, {{"a", "2"}}, 2)};
  EXPECT_TRUE(ParameterImportances(trials, "latency_ms").empty());
  trials.push_back(Trial(2, {{"a", "3"}}, 3));
  EXPECT_TRUE(ParameterImportances(trials, "other_metric").empty());
  EXPECT_EQ(ParameterImportances(trials, "latency_ms").size(), 1u);
}

}  // namespace
}  // namespace cprof::tune
