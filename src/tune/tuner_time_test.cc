// The study's clock over a synthetic evaluator of 30 ms trials: the ETA, and --time (when the
// search stops, what it keeps for the re-measurement, and how much that re-measures).
#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tune/space_file.h"
#include "tune/study_storage.h"
#include "tune/tuner.h"

namespace cprof::tune {
namespace {

// Odd x is infeasible at once (as a configuration absent from a replay cache); even x takes 30 ms.
class SlowEvenEvaluator : public Evaluator {
 public:
  EvalResult Evaluate(const std::map<std::string, std::string>& p, Rng&) override {
    EvalResult r;
    if (std::stoi(p.at("x")) % 2 == 1) {
      r.state = TrialState::kInfeasible;
      return r;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(30));
    r.state = TrialState::kComplete;
    r.metrics["time"] = 1;
    return r;
  }
};

// x in 0..high, default 0: with SlowEvenEvaluator, (high + 1) / 2 evaluations of 30 ms.
SearchSpace SlowEvenSpace(int high) {
  auto file = ParseSpaceYaml(
      "parameters:\n  - {name: x, type: int, low: 0, high: " + std::to_string(high) + ", default: 0}\n", "wide.yaml");
  EXPECT_TRUE(file.ok());
  return file.ok() ? file->space : SearchSpace();
}

// A random search of up to 1,000 evaluations under --time `limit` (0: none).
TuneOptions TimedOptions(const std::string& study, std::chrono::milliseconds limit) {
  TuneOptions o;
  o.study_name = study;
  o.budget = 1000;
  o.objectives = {{"time", false}};
  o.sampler = "random";
  o.time_limit_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(limit).count();
  return o;
}

// A random search of SlowEvenSpace(high) under --time `limit` that re-measures the best `top`
// with `repeats` runs each: its result, and the seconds the whole run took.
struct TimedRun {
  StatusOr<TuneResult> result;
  double seconds;
};
TimedRun RunTimed(int high, std::chrono::milliseconds limit, int top, int repeats) {
  const SearchSpace space = SlowEvenSpace(high);
  SlowEvenEvaluator eval;
  auto store = MakeMemoryStorage();
  TuneOptions o = TimedOptions("timed", limit);
  o.remeasure_top = top;
  o.remeasure_repeats = repeats;
  auto t0 = std::chrono::steady_clock::now();
  StatusOr<TuneResult> r = RunStudy(space, eval, *store, o, nullptr);
  return {std::move(r), std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count()};
}

// The ETA counts the time evaluations take, not the instant infeasible trials: after k of B
// evaluations it is at least (B - k) x 30 ms, and unknown (-1) before the first evaluation.
TEST(TunerTest, ProgressEtaIsTimePerEvaluation) {
  const SearchSpace space = SlowEvenSpace(15);
  SlowEvenEvaluator eval;
  auto store = MakeMemoryStorage();
  TuneOptions o = TimedOptions("eta", std::chrono::milliseconds(0));  // no --time
  o.budget = 5;
  o.default_first = false;
  std::vector<std::pair<int64_t, double>> seen;  // (evaluations, eta_s) per progress call
  auto r = RunStudy(space, eval, *store, o,
                    [&](const Progress& p) { seen.emplace_back(p.evaluations, p.eta_s); });
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(seen.empty());
  int checked = 0;
  for (auto [evaluations, eta] : seen) {
    if (evaluations == 0) {
      EXPECT_EQ(eta, -1);
      continue;
    }
    EXPECT_GE(eta, 0.9 * 0.030 * static_cast<double>(5 - evaluations)) << "after " << evaluations;
    ++checked;
  }
  EXPECT_GE(checked, 5);
  // The re-measurement at the end counts too: the best 2 and the default, 3 runs each to choose,
  // then the best and the default 3 each again: 15 runs of 30 ms still to come after the last
  // evaluation (it said 0 s).
  o.study_name = "eta_remeasure";
  o.remeasure_top = 2;
  o.remeasure_repeats = 3;
  o.default_first = true;
  seen.clear();
  r = RunStudy(space, eval, *store, o, [&](const Progress& p) {
    if (!p.remeasured) seen.emplace_back(p.evaluations, p.eta_s);
  });
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(seen.empty());
  EXPECT_EQ(seen.back().first, 5);
  EXPECT_GE(seen.back().second, 0.9 * 0.030 * 15);
}

// The ETA never reaches past --time: 1,000 evaluations of 30 ms would take 30 s, the limit is 0.5 s
// (it said "eta 13 min 30 s" under --time 5s).
TEST(TunerTest, ProgressEtaEndsAtTheTimeLimit) {
  const SearchSpace space = SlowEvenSpace(1999);
  SlowEvenEvaluator eval;
  auto store = MakeMemoryStorage();
  std::vector<double> etas;
  auto r = RunStudy(space, eval, *store, TimedOptions("eta_time", std::chrono::milliseconds(500)),
                    [&](const Progress& p) {
                      if (p.eta_s >= 0) etas.push_back(p.eta_s);
                    });
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(etas.empty());
  for (double eta : etas) EXPECT_LE(eta, 0.5);
}

// --time is the whole run's. With 30 ms evaluations, a 1.2 s limit and a re-measurement of up to
// 16 runs (4 per configuration: the best and the default to choose, both again to report), the
// search stops early enough that the run, re-measurement included, ends within the limit; it used
// to search for 1.2 s and re-measure after that (1.7 s).
TEST(TunerTest, TimeLimitLeavesTheRemeasurementItsTime) {
  auto [r, seconds] = RunTimed(199, std::chrono::milliseconds(1200), 1, 4);  // 100 even values: 3 s of search
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_FALSE(r->remeasured.empty());
  EXPECT_LT(seconds, 1.2 + 0.35) << "the re-measurement ran past --time";  // it took 1.7 s
  EXPECT_GE(r->evaluations, 3);  // the search still ran
  // Why the study has fewer trials than its budget: when the search stopped, and what it kept.
  ASSERT_TRUE(r->search_stopped_for_time.has_value());
  EXPECT_LT(r->search_stopped_for_time->elapsed_s, 1.2);
  EXPECT_GT(r->search_stopped_for_time->elapsed_s + r->search_stopped_for_time->reserved_s, 1.2);
}

// With slow trials and a short --time, the full re-measurement (the best 8 and the default to
// choose, 3 runs each, then 2 x 3 runs: 33 x 30 ms = 1 s of a 2.4 s limit) would leave the search
// little. The search keeps a quarter (0.6 s), and the re-measurement chooses among the best it
// has room for.
TEST(TunerTest, TimeLimitKeepsTheSearchMostOfTheTime) {
  auto [r, seconds] = RunTimed(399, std::chrono::milliseconds(2400), 8, 3);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_TRUE(r->search_stopped_for_time.has_value());
  EXPECT_LE(r->search_stopped_for_time->reserved_s, 0.6 + 1e-9);  // it kept 1 s
  EXPECT_GT(r->search_stopped_for_time->elapsed_s, 1.6);           // it searched for 1.4 s
  ASSERT_TRUE(r->remeasure_top_within_time.has_value());
  EXPECT_GE(*r->remeasure_top_within_time, 1);
  EXPECT_LT(*r->remeasure_top_within_time, 8);
  EXPECT_LE(r->remeasure_candidates.size(), static_cast<size_t>(*r->remeasure_top_within_time) + 1);
  EXPECT_LT(seconds, 2.4 + 0.35) << "the re-measurement ran past --time";
}

}  // namespace
}  // namespace cprof::tune
