// SurrogateData: the training set that model-based samplers (GP, TPE) learn from.
//
//   SurrogateData d = CollectSurrogateData(history);
//   history.all()[d.rows[i]] has target d.y[i]; d.order lists complete rows, best first.
//
// Targets are log(y) when every measured y is positive (run times span orders of magnitude),
// -log(-y) when every one is negative (a maximized rate, GFLOP/s, which the tuner negates), else y. A failed
// trial is a row without a target (y NaN): TPE counts it among the bad trials, evolution breeds from
// complete ones only, and the GP sampler models failures apart (feasibility_model.h). Pending and
// infeasible trials are left out.
#pragma once

#include <cstddef>
#include <vector>

#include "tune/history.h"

namespace cprof::tune {

struct SurrogateData {
  std::vector<size_t> rows;   // indices into history.all()
  std::vector<double> y;      // transformed targets, same order as rows
  std::vector<bool> failed;   // per row: the trial failed (its y is NaN)
  std::vector<size_t> order;  // positions in rows of complete trials, best (lowest y) first
  size_t complete = 0;
  enum class Scale { kLinear, kLog, kNegatedLog };
  Scale scale = Scale::kLinear;
};

SurrogateData CollectSurrogateData(const History& history);

}  // namespace cprof::tune
