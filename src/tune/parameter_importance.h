// Which parameters of a finished study mattered: the share of the objective's variance across
// the complete trials that each parameter's values explain on their own (one-way ANOVA, eta^2,
// on the log of the objective when every value is positive). Numeric parameters with more than
// 8 distinct values are cut into 8 quantile bins first. Shares are of epsilon^2 (eta^2 less what
// a parameter's levels explain by chance, which grows with their number), normalised to sum to 1, as
// Optuna's importances are; unlike Optuna's default (fANOVA over a random forest) this sees
// main effects only, and says so with the raw eta^2 beside the share.
//
//   std::vector<ParameterImportance> imp = ParameterImportances(result.trials, "latency_ms");
//   for (auto& p : imp) fmt::print("{} {:.2f}\n", p.name, p.share);   // most important first
#pragma once

#include <string>
#include <vector>

#include "tune/tuner.h"

namespace cprof::tune {

struct ParameterImportance {
  std::string name;
  double eta_squared = 0;      // variance explained by this parameter alone, in [0, 1]
  double epsilon_squared = 0;  // eta_squared less what its levels explain by chance, at least 0
  double share = 0;            // epsilon_squared normalised over the parameters (sums to 1 when any > 0)
  int levels = 0;          // distinct values (or bins) seen among the complete trials
};

// Empty when fewer than 3 complete trials carry the objective. Sorted by share, descending.
std::vector<ParameterImportance> ParameterImportances(const std::vector<TrialSummary>& trials,
                                                      const std::string& objective);

}  // namespace cprof::tune
