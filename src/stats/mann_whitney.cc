// Mann-Whitney U: ranks with ties averaged, the exact distribution, the tie-corrected normal approximation.
#include "stats/mann_whitney.h"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include <boost/math/distributions/normal.hpp>

namespace cprof {
namespace {

struct Ranked {
  double rank_sum_x = 0;
  double tie_term = 0;  // sum over tie groups of t^3 - t
  bool ties = false;
};

Ranked RankSamples(std::span<const double> x, std::span<const double> y) {
  const size_t n = x.size() + y.size();
  std::vector<std::pair<double, bool>> all;  // value, belongs to x
  all.reserve(n);
  for (double v : x) all.emplace_back(v, true);
  for (double v : y) all.emplace_back(v, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  Ranked r;
  for (size_t i = 0; i < n;) {
    size_t j = i;
    while (j < n && all[j].first == all[i].first) ++j;
    const double t = static_cast<double>(j - i);
    const double avg_rank = (static_cast<double>(i + 1) + static_cast<double>(j)) / 2;
    for (size_t k = i; k < j; ++k)
      if (all[k].second) r.rank_sum_x += avg_rank;
    if (j - i > 1) {
      r.ties = true;
      r.tie_term += t * t * t - t;
    }
    i = j;
  }
  return r;
}

// Probabilities of U = 0 .. m*n under the null (no ties): coefficients of the Gaussian binomial
// prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i), rescaled after each factor so they sum to 1.
std::vector<double> ExactPmf(int64_t n1, int64_t n2) {
  const int64_t m = std::min(n1, n2);
  const int64_t n = std::max(n1, n2);
  // m extra cells: the product with (1 - q^(n+i)) briefly reaches degree i*n + i before the division.
  std::vector<double> c(static_cast<size_t>(m * n + m + 1), 0.0);
  c[0] = 1;
  for (int64_t i = 1; i <= m; ++i) {
    const int64_t deg_before = (i - 1) * n;
    const int64_t deg_after = i * n;
    // Multiply by (1 - q^(n+i)): descending so c[k - (n+i)] is still the old value.
    for (int64_t k = deg_before + n + i; k >= n + i; --k) c[k] -= c[k - (n + i)];
    // Divide by (1 - q^i): ascending running sum.
    for (int64_t k = i; k <= deg_after; ++k) c[k] += c[k - i];
    // The coefficients now sum to C(n+i, i) / C(n+i-1, i-1) = (n+i)/i times the previous sum.
    const double scale = static_cast<double>(i) / static_cast<double>(n + i);
    for (int64_t k = 0; k <= deg_after; ++k) c[k] *= scale;
    for (int64_t k = deg_after + 1; k <= deg_before + n + i; ++k) c[k] = 0;  // exact division leaves 0 here
  }
  return c;
}

}  // namespace

double MannWhitneyExactSf(int64_t u, int64_t n1, int64_t n2) {
  const int64_t mn = n1 * n2;
  if (u <= 0) return 1;
  if (u > mn) return 0;
  const std::vector<double> pmf = ExactPmf(n1, n2);
  // P(U >= u) = P(U <= mn - u) by symmetry; summing the lower tail keeps small p-values precise.
  double p = 0;
  for (int64_t k = 0; k <= mn - u; ++k) p += std::max(0.0, pmf[k]);
  return std::min(1.0, p);
}

double MannWhitneyMinPValue(int64_t n1, int64_t n2) {
  if (n1 <= 0 || n2 <= 0) return 1;
  // 2 / C(n1 + n2, n1), in logs so large sizes do not overflow.
  const double log_binom = std::lgamma(static_cast<double>(n1 + n2 + 1)) - std::lgamma(static_cast<double>(n1 + 1)) -
                           std::lgamma(static_cast<double>(n2 + 1));
  return std::min(1.0, 2 * std::exp(-log_binom));
}

MannWhitneyResult MannWhitneyU(std::span<const double> x, std::span<const double> y, MannWhitneyMethod method,
                               bool continuity) {
  MannWhitneyResult r;
  if (x.empty() || y.empty()) return r;
  r.valid = true;
  const int64_t n1 = static_cast<int64_t>(x.size());
  const int64_t n2 = static_cast<int64_t>(y.size());
  const Ranked ranked = RankSamples(x, y);
  r.ties = ranked.ties;
  r.u1 = ranked.rank_sum_x - static_cast<double>(n1) * static_cast<double>(n1 + 1) / 2;
  r.u2 = static_cast<double>(n1) * static_cast<double>(n2) - r.u1;
  const double u = std::max(r.u1, r.u2);

  if (method == MannWhitneyMethod::kAuto)
    method = (n1 > 8 && n2 > 8) || r.ties ? MannWhitneyMethod::kAsymptotic : MannWhitneyMethod::kExact;
  if (method == MannWhitneyMethod::kExact && std::min(n1, n2) * std::max(n1, n2) > kMaxExactCells)
    method = MannWhitneyMethod::kAsymptotic;
  r.method_used = method;

  if (method == MannWhitneyMethod::kExact) {
    // Like SciPy, a fractional U (ties, exact forced) is truncated to an integer.
    r.p_value = 2 * MannWhitneyExactSf(static_cast<int64_t>(u), n1, n2);
  } else {
    const double n = static_cast<double>(n1 + n2);
    const double mu = static_cast<double>(n1) * static_cast<double>(n2) / 2;
    const double s = std::sqrt(static_cast<double>(n1) * static_cast<double>(n2) / 12 *
                               ((n + 1) - ranked.tie_term / (n * (n - 1))));
    const double numerator = u - mu - (continuity ? 0.5 : 0.0);
    if (s == 0) {
      r.z = 0;
      r.p_value = 1;
    } else {
      r.z = numerator / s;
      r.p_value = 2 * boost::math::cdf(boost::math::complement(boost::math::normal(), r.z));
    }
  }
  r.p_value = std::clamp(r.p_value, 0.0, 1.0);
  return r;
}

}  // namespace cprof
