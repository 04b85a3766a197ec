// Quantiles of a sample with linear interpolation between order statistics: numpy's default
// (`np.quantile(x, q, method="linear")`, Hyndman & Fan type 7), so numbers agree with the
// Python tools people compare against.
//
//   std::vector<double> v = {4, 1, 3, 2};
//   Quantile(v, 0.5) == 2.5;           // sorts a copy
//   std::sort(v.begin(), v.end());
//   QuantileSorted(v, 0.99) == 3.97;   // no copy; `v` must be sorted ascending
//
// An empty sample has no quantile: these return NaN. q is clamped to [0, 1].
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace cprof {

// h = (n - 1) * q; result = x[floor(h)] + (h - floor(h)) * (x[floor(h) + 1] - x[floor(h)]).
double QuantileSorted(std::span<const double> sorted, double q);
double QuantileSorted(std::span<const int64_t> sorted, double q);

// Sorts a copy of `values` first.
double Quantile(std::vector<double> values, double q);
double Quantile(std::vector<int64_t> values, double q);

}  // namespace cprof
