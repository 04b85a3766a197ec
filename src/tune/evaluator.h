// Evaluator: measures one configuration — by running the workload (trial_runner.h) or by looking it
// up in a recorded cache (replay_evaluator.h).
//
//   EvalResult r = evaluator.Evaluate(space.Named(config), rng);
//   if (r.state == TrialState::kComplete) use(r.metrics.at("latency_ms"));
//
// Evaluate may be called from several worker threads at once; implementations are thread-safe.
#pragma once

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
  std::string reason;                      // why it failed / is infeasible
  // Failed because the command exited non-zero with a message on stderr (the reason quotes its
  // last line): the same one on the study's first trials means the command itself is wrong.
  bool exit_error = false;
  bool timed_out = false;                  // failed because it ran past the timeout
  double seconds = 0;                      // wall time the evaluation took
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // `params`: name -> value text of the active parameters (SearchSpace::Named).
  virtual EvalResult Evaluate(const std::map<std::string, std::string>& params, Rng& rng) = 0;
};

}  // namespace cprof::tune
