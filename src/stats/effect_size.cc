// Hodges-Lehmann shift by selection in the sorted difference matrix; Cliff's delta by counting.
#include "stats/effect_size.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace cprof {
namespace {

// With a and b sorted ascending, the differences a[j] - b[i] form a matrix sorted along both
// axes, so counting those <= d or finding the largest <= d is one O(n + m) staircase walk.
struct DiffMatrix {
  std::vector<double> a;  // after, sorted
  std::vector<double> b;  // before, sorted

  // Number of pairs with a[j] - b[i] <= d.
  uint64_t CountAtMost(double d) const {
    uint64_t count = 0;
    size_t j = 0;
    for (double bi : b) {  // as b[i] grows, the a[j] with a[j] - b[i] <= d only grow
      while (j < a.size() && a[j] - bi <= d) ++j;
      count += j;
    }
    return count;
  }

  // The largest difference <= d (-inf if none).
  double LargestAtMost(double d) const {
    double best = -std::numeric_limits<double>::infinity();
    size_t j = 0;
    for (double bi : b) {
      while (j < a.size() && a[j] - bi <= d) ++j;
      if (j > 0) best = std::max(best, a[j - 1] - bi);
    }
    return best;
  }

  // The k-th smallest difference, k in [1, n*m].
  double Kth(uint64_t k) const {
    double lo = a.front() - b.back();  // the smallest difference: count(lo) >= 1
    if (k <= CountAtMost(lo)) return lo;
    double hi = a.back() - b.front();  // an actual difference with count(hi) = n*m >= k
    // Invariant: count(lo) < k <= count(hi), hi is a difference; stop when no double lies between.
    for (int iter = 0; iter < 2000; ++iter) {
      const double mid = lo + (hi - lo) / 2;
      if (!(mid > lo && mid < hi)) break;
      if (CountAtMost(mid) >= k) {
        hi = LargestAtMost(mid);
      } else {
        lo = mid;
      }
    }
    return hi;
  }
};

constexpr uint64_t kDirectPairs = 1 << 20;  // below this, sorting all differences is faster

}  // namespace

double HodgesLehmannShift(std::span<const double> before, std::span<const double> after) {
  if (before.empty() || after.empty()) return std::numeric_limits<double>::quiet_NaN();
  const uint64_t total = static_cast<uint64_t>(before.size()) * after.size();
  if (total <= kDirectPairs) {
    std::vector<double> diffs;
    diffs.reserve(total);
    for (double y : after)
      for (double x : before) diffs.push_back(y - x);
    const size_t mid = diffs.size() / 2;
    std::nth_element(diffs.begin(), diffs.begin() + static_cast<ptrdiff_t>(mid), diffs.end());
    if (diffs.size() % 2 == 1) return diffs[mid];
    const double upper = diffs[mid];
    const double lower = *std::max_element(diffs.begin(), diffs.begin() + static_cast<ptrdiff_t>(mid));
    return (lower + upper) / 2;
  }
  DiffMatrix m{{after.begin(), after.end()}, {before.begin(), before.end()}};
  std::sort(m.a.begin(), m.a.end());
  std::sort(m.b.begin(), m.b.end());
  if (total % 2 == 1) return m.Kth(total / 2 + 1);
  return (m.Kth(total / 2) + m.Kth(total / 2 + 1)) / 2;
}

double CliffsDelta(std::span<const double> before, std::span<const double> after) {
  if (before.empty() || after.empty()) return std::numeric_limits<double>::quiet_NaN();
  std::vector<double> b(before.begin(), before.end());
  std::sort(b.begin(), b.end());
  int64_t greater = 0, less = 0;
  for (double y : after) {
    greater += std::lower_bound(b.begin(), b.end(), y) - b.begin();  // before values < y
    less += b.end() - std::upper_bound(b.begin(), b.end(), y);      // before values > y
  }
  return static_cast<double>(greater - less) / (static_cast<double>(before.size()) * static_cast<double>(after.size()));
}

std::string_view CliffsDeltaMagnitude(double delta) {
  const double d = std::fabs(delta);
  if (d < 0.147) return "negligible";
  if (d < 0.33) return "small";
  if (d < 0.474) return "medium";
  return "large";
}

}  // namespace cprof
