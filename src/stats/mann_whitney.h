// The Mann-Whitney U test (Wilcoxon rank-sum), two-sided, with SciPy's method choice:
// `scipy.stats.mannwhitneyu(x, y, alternative="two-sided", method="auto", use_continuity=True)`.
//
//   MannWhitneyResult r = MannWhitneyU(after, before);
//   r.u1        // U of the first sample: number of pairs (x_i, y_j) with x_i > y_j, ties count 1/2
//   r.p_value   // exact when a sample has <= 8 values and there are no ties, else normal approx.
//
// The exact null distribution is the Gaussian binomial coefficient [n1+n2 choose n1]_q, built
// as a product of m = min(n1, n2) factors in O(m^2 n) time and O(m n) memory, kept normalized
// so it never overflows. Past kMaxExactCells (m * n) the normal approximation is used even when
// exact was asked for; `method_used` says which one ran.
#pragma once

#include <cstdint>
#include <span>

namespace cprof {

enum class MannWhitneyMethod { kAuto, kExact, kAsymptotic };

struct MannWhitneyResult {
  bool valid = false;              // both samples non-empty
  double u1 = 0;                   // U statistic of x
  double u2 = 0;                   // n1 * n2 - u1
  double p_value = 1;              // two-sided
  double z = 0;                    // standardized U (asymptotic method only)
  bool ties = false;               // any value appears more than once in x ∪ y
  MannWhitneyMethod method_used = MannWhitneyMethod::kAsymptotic;
};

inline constexpr int64_t kMaxExactCells = 4'000'000;

MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y,
                               MannWhitneyMethod method = MannWhitneyMethod::kAuto, bool continuity = true);

// P(U >= u) under the null hypothesis for sample sizes n1, n2 (no ties), exactly.
double MannWhitneyExactSf(int64_t u, int64_t n1, int64_t n2);

// The smallest two-sided p-value the exact test can give with these sizes: 2 / C(n1 + n2, n1).
// When it exceeds alpha, no difference whatsoever can be declared significant.
double MannWhitneyMinPValue(int64_t n1, int64_t n2);

}  // namespace cprof
