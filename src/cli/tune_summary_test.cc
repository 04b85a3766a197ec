// tune's progress lines (TuneProgressPrinter) and JSON result (TuneSummaryJson) on hand-made trials.
#include "cli/tune_summary.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "tune/racing.h"
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

// The default is kept only on the final runs of both: a best measured worse there (here against a
// default of 0, where no relative improvement exists) keeps the default; a best whose final runs
// --time cut keeps the fresh choice, whatever the search's values say (they overruled it).
TEST(TuneOutcomeTest, OnlyTheFinalRunsKeepTheDefault) {
  auto file = tune::ParseSpaceYaml("parameters:\n  - {name: x, type: int, low: 0, high: 2, default: 0}\n", "s.yaml");
  ASSERT_TRUE(file.ok());
  tune::TuneResult r;
  r.objectives = {{"errors", false}};
  for (int i = 0; i < 2; ++i) {
    TrialSummary t;
    t.number = i;
    t.state = TrialState::kComplete;
    t.metrics["errors"] = i == 0 ? 1 : 5;  // the default (trial 0) searched better
    t.params = {{"x", std::to_string(i)}};
    r.trials.push_back(t);
  }
  r.default_trial = 0;
  r.best = 1;  // chosen by fresh runs
  tune::TuneOptions options;
  auto rem = [](int64_t number, std::vector<double> values, std::string role) {
    tune::Remeasured m;
    m.number = number;
    m.n = values.size();
    const tune::MeanInterval ci = tune::MeanConfidenceInterval(values);
    m.mean = ci.mean;
    m.ci_low = ci.low;
    m.ci_high = ci.high;
    m.values = std::move(values);
    m.role = std::move(role);
    return m;
  };
  // --time cut the final runs: the search's values (default 0 < best 5) must not overrule the choice.
  EXPECT_FALSE(TuneOutcomeOf({r, options, file->space, "memory"}).keep_default);
  // Final runs: the best at 4, the default at 0: worse, beyond the noise.
  r.remeasured = {rem(1, {3.5, 4, 4.5}, "best"), rem(0, {0, 0, 0}, "default")};
  r.remeasured_best = 0;
  TuneOutcome o = TuneOutcomeOf({r, options, file->space, "memory"});
  EXPECT_TRUE(o.keep_default);
  EXPECT_EQ(KeepDefaultNote(o),
            "the default measured better in the final runs, beyond the noise: the default is kept");
  // Final runs where the best is better: it stays.
  r.remeasured = {rem(1, {0, 0, 0}, "best"), rem(0, {3.5, 4, 4.5}, "default")};
  EXPECT_FALSE(TuneOutcomeOf({r, options, file->space, "memory"}).keep_default);
  // Intervals that overlap ([7.5, 12.5] and [11.0, 16.0]) around a difference Welch's test finds
  // (p = 0.013): not within the noise (the overlap kept the default against a best 3x as fast).
  r.remeasured = {rem(1, {9, 10, 11}, "best"), rem(0, {12.5, 13.5, 14.5}, "default")};
  ASSERT_LT(r.remeasured[1].ci_low, r.remeasured[0].ci_high);
  o = TuneOutcomeOf({r, options, file->space, "memory"});
  EXPECT_EQ(o.within_noise, std::optional<bool>(false));
  EXPECT_FALSE(o.keep_default);
  // Closer than that: within the noise, the default kept.
  r.remeasured = {rem(1, {9, 10, 11}, "best"), rem(0, {10, 11, 12}, "default")};
  o = TuneOutcomeOf({r, options, file->space, "memory"});
  EXPECT_EQ(o.within_noise, std::optional<bool>(true));
  EXPECT_TRUE(o.keep_default);
  EXPECT_EQ(
      KeepDefaultNote(o),
      "within the noise: the final runs cannot tell them apart (Welch's t-test, 95%); the default is kept");
}

// --time's notes say when the search stopped, what it kept, and how many of the best the
// re-measurement had room for.
TEST(TuneSummaryTextTest, TimeLimitNotesSayWhatTheReMeasurementHadRoomFor) {
  auto file = tune::ParseSpaceYaml("parameters:\n  - {name: x, type: int, low: 0, high: 2, default: 0}\n", "s.yaml");
  ASSERT_TRUE(file.ok());
  tune::TuneResult r;
  r.evaluations = 21;
  r.search_stopped_for_time = tune::TimeLimitStop{.elapsed_s = 2.3, .reserved_s = 0.75};
  tune::TuneOptions options;
  options.budget = 100;
  options.remeasure_top = 3;
  std::vector<std::string> notes = TimeLimitNotes({r, options, file->space, "memory"});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_EQ(notes[0],
            "--time ended the search after 21 of 100 evaluations, at 2.3 s: 0.8 s were kept for the re-measurement "
            "(its most runs at this run's pace, up to 25% of --time)");
  r.remeasure_top_within_time = 1;
  notes = TimeLimitNotes({r, options, file->space, "memory"});
  ASSERT_EQ(notes.size(), 2u);
  EXPECT_EQ(notes[1], "--time left room to re-measure the best 1 configuration of the 3 asked for");
}

// The improvement is positive when the best is better, whichever the direction, and there is none
// between a search value and a fresh mean: the page and the terminal both take it from here (the
// page computed its own and read "+49.2% better" against a default whose fresh runs had failed).
TEST(TuneOutcomeTest, ImprovementOnlyBetweenValuesOfOneKind) {
  auto file = tune::ParseSpaceYaml("parameters:\n  - {name: x, type: int, low: 0, high: 2, default: 0}\n", "s.yaml");
  ASSERT_TRUE(file.ok());
  tune::TuneResult r;
  r.objectives = {{"ms", false}};
  for (double v : {120.0, 60.0}) {
    TrialSummary t;
    t.number = static_cast<int64_t>(r.trials.size());
    t.state = TrialState::kComplete;
    t.metrics["ms"] = v;
    t.params = {{"x", std::to_string(t.number)}};
    r.trials.push_back(t);
  }
  r.default_trial = 0;
  r.best = 1;
  tune::TuneOptions options;
  TuneOutcome o = TuneOutcomeOf({r, options, file->space, "memory"});
  ASSERT_TRUE(o.improvement);
  EXPECT_DOUBLE_EQ(*o.improvement, 0.5);
  r.objectives = {{"ms", true}};  // larger is better: 60 against 120 is worse
  EXPECT_DOUBLE_EQ(*TuneOutcomeOf({r, options, file->space, "memory"}).improvement, -0.5);
  r.objectives = {{"ms", false}};
  tune::Remeasured best;
  best.number = 1;
  best.n = 3;
  best.mean = 61;
  best.ci_low = 58;
  best.ci_high = 64;
  best.role = "best";
  r.remeasured = {best};  // the default's fresh runs all failed: only the best has a mean
  r.remeasured_best = 0;
  o = TuneOutcomeOf({r, options, file->space, "memory"});
  EXPECT_EQ(o.best_value, 61);
  EXPECT_EQ(o.default_value, 120);
  EXPECT_FALSE(o.improvement);
}

}  // namespace
}  // namespace cprof::cli
