// Holm's step-down and Benjamini-Hochberg's step-up adjusted p-values.
#include "stats/multiple_testing.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cprof {

namespace {

// Indices of the non-NaN p-values, ascending by p (stable).
std::vector<size_t> AscendingOrder(std::span<const double> p_values) {
  std::vector<size_t> order;
  for (size_t i = 0; i < p_values.size(); ++i)
    if (!std::isnan(p_values[i])) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p_values[a] < p_values[b]; });
  return order;
}

}  // namespace

std::vector<double> HolmAdjust(std::span<const double> p_values) {
  std::vector<double> adjusted(p_values.begin(), p_values.end());
  const std::vector<size_t> order = AscendingOrder(p_values);
  const double m = static_cast<double>(order.size());
  double running = 0;
  for (size_t rank = 0; rank < order.size(); ++rank) {
    running = std::max(running, (m - static_cast<double>(rank)) * p_values[order[rank]]);
    adjusted[order[rank]] = std::min(1.0, running);
  }
  return adjusted;
}

std::vector<double> BenjaminiHochbergAdjust(std::span<const double> p_values) {
  std::vector<double> adjusted(p_values.begin(), p_values.end());
  const std::vector<size_t> order = AscendingOrder(p_values);
  const double m = static_cast<double>(order.size());
  double running = 1;
  for (size_t rank = order.size(); rank-- > 0;) {
    running = std::min(running, m / static_cast<double>(rank + 1) * p_values[order[rank]]);
    adjusted[order[rank]] = running;
  }
  return adjusted;
}

}  // namespace cprof
