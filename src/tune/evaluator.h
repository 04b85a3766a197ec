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
  std::map<std::string, double> metrics;   // every number the evaluation reported
  std::string reason;                      // why it failed / is infeasible
  double seconds = 0;                      // wall time the evaluation took
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // `params`: name -> value text of the active parameters (SearchSpace::Named).
  virtual EvalResult Evaluate(const std::map<std::string, std::string>& params, Rng& rng) = 0;
};

}  // namespace cprof::tune
