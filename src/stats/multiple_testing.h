// Corrections for testing many hypotheses at once, so that "one of twelve metrics moved" is not
// called significant by chance.
//
// Holm-Bonferroni controls the family-wise error rate (the chance of any false call) at alpha
// with no assumption about how the tests depend on each other, and is uniformly more powerful
// than plain Bonferroni: right for a handful of metrics behind one verdict (validate).
// Benjamini-Hochberg controls the false discovery rate (the expected share of false calls among
// the calls) under independence or positive dependence: right for screening thousands of
// operators for the ones that changed (compare), where Holm would call nothing.
//
//   std::vector<double> adj = HolmAdjust({0.01, 0.04, 0.03});   // {0.03, 0.06, 0.06}
//   bool significant = adj[i] < alpha;
//
// Adjusted p-values as statsmodels' multipletests(method="holm" / "fdr_bh") defines them; NaN
// inputs are left out of the family and stay NaN.
#pragma once

#include <span>
#include <vector>

namespace cprof {

std::vector<double> HolmAdjust(std::span<const double> p_values);
std::vector<double> BenjaminiHochbergAdjust(std::span<const double> p_values);

}  // namespace cprof
