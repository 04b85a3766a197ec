// Evaluator: measures one configuration — by running the workload (trial_runner.h) or by looking it
// up in a recorded cache (replay_evaluator.h).
//
//   EvalResult r = evaluator.Evaluate(space.Named(config), rng);
//   if (r.state == TrialState::kComplete) use(r.metrics.at("latency_ms"));
//
// Evaluate may be called from several worker threads at once; implementations are thread-safe.
#pragma once

#include <chrono>
#include <map>
#include <string>

#include "tune/history.h"
#include "tune/rng.h"

namespace cprof::tune {

struct EvalResult {
  TrialState state = TrialState::kFailed;  // kComplete, kFailed or kInfeasible
  std::map<std::string, double> metrics;   // every finite number the evaluation reported
  // Values reported that are not finite numbers, by name: what they are ("is NaN", "is infinite",
  // "is a string (\"12.5\"), not a number"); an objective among them fails the trial so.
  std::map<std::string, std::string> not_numbers;
  // Values the evaluation looked for and did not find, by name: why, saying what there was instead
  // ("no span named 'decodee' in the trial's trace (it has: decode, prefill)"). An objective among
  // them is absent from the output, as one the command never printed (trial_outcome.h).
  std::map<std::string, std::string> absent;
  // Why the output held no metrics although it seemed to ("its last line that looks like a JSON
  // object is not JSON (...)"): said when an objective is missing.
  std::string output_problem;
  std::string reason;                      // why it failed / is infeasible
  // Failed because the command exited non-zero with a message on stderr (the reason quotes its
  // last line) or was killed by a signal: the same on the study's first trials means the command
  // itself is wrong.
  bool exit_error = false;
  bool timed_out = false;                  // failed because it ran past the timeout
  // Stopped at the run's deadline (SetDeadline): says nothing about the configuration.
  bool past_deadline = false;
  double seconds = 0;                      // wall time the evaluation took
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // `params`: name -> value text of the active parameters (SearchSpace::Named).
  virtual EvalResult Evaluate(const std::map<std::string, std::string>& params, Rng& rng) = 0;
  // Evaluations running at `deadline` are stopped then, and none starts after it: they return
  // past_deadline (`tune --time`). Called before any Evaluate, or between them; the default ignores
  // it (instant evaluators such as a replay).
  virtual void SetDeadline(std::chrono::steady_clock::time_point deadline) { (void)deadline; }
};

}  // namespace cprof::tune
