// Corrections for testing many metrics at once, so that "one of twelve metrics moved" is not
// called significant by chance. Holm-Bonferroni controls the family-wise error rate at alpha
// with no assumption about how the tests depend on each other, and is uniformly more powerful
// than plain Bonferroni.
//
//   std::vector<double> adj = HolmAdjust({0.01, 0.04, 0.03});   // {0.03, 0.06, 0.06}
//   bool significant = adj[i] < alpha;
//
// Adjusted p-values as statsmodels' multipletests(method="holm") defines them; NaN inputs are
// left out of the family and stay NaN.
#pragma once

#include <span>
#include <vector>

namespace cprof {

std::vector<double> HolmAdjust(std::span<const double> p_values);

}  // namespace cprof
