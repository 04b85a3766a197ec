// ReplayEvaluator: evaluates a configuration by looking it up in a Kernel Tuner cache file, which
// makes sampler benchmarks exact and free. The only reader of a cache file's records.
//
//   ASSIGN_OR_RETURN(auto replay, ReplayEvaluator::Open("gemm.json.gz", space, /*noise=*/false));
//   EvalResult r = replay->Evaluate(space.Named(c), rng);   // metrics[replay->metric()], "time" in ms
//
// Semantics (shared with bench/optuna_replay.py): a configuration absent from the cache violates
// the space's hidden constraints -> kInfeasible (costs no evaluation); a record with an error
// string -> kFailed with that reason (costs one); otherwise kComplete with the cache's objective:
// `time` = the mean of `times` (or, with noise, one of `times` drawn at random), another metric
// (the file's `objective`, "GFLOP/s") its recorded value.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/status.h"
#include "tune/evaluator.h"
#include "tune/search_space.h"

namespace cprof::tune {

class ReplayEvaluator final : public Evaluator {
 public:
  // The space must have the cache's parameters (same names; value lists may differ).
  static StatusOr<std::unique_ptr<ReplayEvaluator>> Open(const std::string& path, const SearchSpace& space,
                                                         bool noise);

  EvalResult Evaluate(const std::map<std::string, std::string>& params, Rng& rng) override;
  // The one metric a replay reports: the cache's objective ("time", ms, unless the file names
  // another), and whether higher is better (nullopt: neither the file nor the name says).
  const std::string& metric() const { return metric_; }
  std::optional<bool> higher_is_better() const { return higher_is_better_; }

  // For benchmarks: the objectives of every valid record, and the number of failed records.
  const std::vector<double>& valid_objectives() const { return valid_; }
  size_t failed_count() const { return failed_; }

 private:
  struct Entry {
    double mean = 0;
    std::vector<double> times;
    std::string error;  // non-empty: failed
  };
  std::string metric_ = "time";
  std::optional<bool> higher_is_better_ = false;
  std::vector<std::string> names_;  // the cache's parameter order
  std::unordered_map<std::string, Entry> entries_;  // key in names_ order -> record
  std::vector<double> valid_;
  size_t failed_ = 0;
  bool noise_ = false;
};

}  // namespace cprof::tune
