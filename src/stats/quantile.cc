// Linear-interpolation quantiles (numpy's default method).
#include "stats/quantile.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace cprof {
namespace {

template <typename T>
double QuantileImpl(std::span<const T> x, double q) {
  if (x.empty() || std::isnan(q)) return std::numeric_limits<double>::quiet_NaN();
  q = std::clamp(q, 0.0, 1.0);
  double h = static_cast<double>(x.size() - 1) * q;
  size_t lo = static_cast<size_t>(std::floor(h));
  if (lo + 1 >= x.size()) return static_cast<double>(x.back());
  double frac = h - static_cast<double>(lo);
  double a = static_cast<double>(x[lo]);
  double b = static_cast<double>(x[lo + 1]);
  // numpy's _lerp: a + (b - a) * t, switched to b - (b - a) * (1 - t) for t >= 0.5 (exact ends).
  return frac >= 0.5 ? b - (b - a) * (1 - frac) : a + (b - a) * frac;
}

}  // namespace

double QuantileSorted(std::span<const double> sorted, double q) { return QuantileImpl(sorted, q); }
double QuantileSorted(std::span<const int64_t> sorted, double q) { return QuantileImpl(sorted, q); }

double Quantile(std::vector<double> values, double q) {
  std::sort(values.begin(), values.end());
  return QuantileSorted(std::span<const double>(values), q);
}

double Quantile(std::vector<int64_t> values, double q) {
  std::sort(values.begin(), values.end());
  return QuantileSorted(std::span<const int64_t>(values), q);
}

}  // namespace cprof
