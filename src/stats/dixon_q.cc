// Dixon's Q test with the generated 99.5% table.
#include "stats/dixon_q.h"

#include <algorithm>
#include <numeric>
#include <vector>

namespace cprof {
namespace {
#include "stats/dixon_critical_values.inc"
}  // namespace

DixonResult DixonQTest(std::span<const double> values, DixonSide side) {
  DixonResult r;
  const size_t n = values.size();
  if (n < 3 || n > 100) return r;
  std::vector<size_t> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return values[a] < values[b]; });
  if (side == DixonSide::kHigh) std::reverse(order.begin(), order.end());
  auto x = [&](size_t i) { return values[order[i]]; };  // x(0) is the suspect end
  double num, den;
  if (n <= 7) {
    r.ratio = "r10", num = x(1) - x(0), den = x(n - 1) - x(0);
  } else if (n <= 10) {
    r.ratio = "r11", num = x(1) - x(0), den = x(n - 2) - x(0);
  } else if (n <= 13) {
    r.ratio = "r21", num = x(2) - x(0), den = x(n - 2) - x(0);
  } else {
    r.ratio = "r22", num = x(2) - x(0), den = x(n - 3) - x(0);
  }
  if (den == 0) return r;
  r.applicable = true;
  r.statistic = num / den;  // both differences share a sign, so the ratio is in [0, 1]
  r.critical = kDixonCritical995[n - 3];
  r.outlier = r.statistic > r.critical;
  r.index = order[0];
  return r;
}

}  // namespace cprof
