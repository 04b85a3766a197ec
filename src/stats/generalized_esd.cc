// Generalized ESD (Rosner 1983), one-sided.
#include "stats/generalized_esd.h"

#include <boost/math/distributions/students_t.hpp>

#include <cmath>

namespace cprof {

EsdResult GeneralizedEsdTest(std::span<const double> values, size_t max_outliers, double alpha, EsdSide side) {
  EsdResult res;
  const size_t n = values.size();
  if (n < 3) return res;
  max_outliers = std::min(max_outliers, n - 2);
  std::vector<bool> removed(n, false);
  size_t found = 0;
  for (size_t i = 1; i <= max_outliers; ++i) {
    const size_t m = n - i + 1;  // values left before this removal
    double mean = 0;
    for (size_t j = 0; j < n; ++j) {
      if (!removed[j]) mean += values[j];
    }
    mean /= static_cast<double>(m);
    double ss = 0;
    for (size_t j = 0; j < n; ++j) {
      if (!removed[j]) ss += (values[j] - mean) * (values[j] - mean);
    }
    const double sd = std::sqrt(ss / static_cast<double>(m - 1));
    if (sd <= 0) break;
    size_t best = n;
    double best_dev = -1;
    for (size_t j = 0; j < n; ++j) {
      if (removed[j]) continue;
      double dev = side == EsdSide::kLow ? mean - values[j] : values[j] - mean;
      if (dev > best_dev) best_dev = dev, best = j;
    }
    res.applicable = true;
    // lambda_i = (m - 1) t_{p, m-2} / sqrt((m - 2 + t^2) m), p = 1 - alpha / m (one-sided).
    const double df = static_cast<double>(m) - 2;
    double lambda = INFINITY;
    if (df >= 1) {
      const double t = boost::math::quantile(boost::math::students_t(df), 1 - alpha / static_cast<double>(m));
      lambda = (static_cast<double>(m) - 1) * t / std::sqrt((df + t * t) * static_cast<double>(m));
    }
    const double r = best_dev / sd;
    res.steps.push_back({best, r, lambda});
    if (r > lambda) found = i;
    removed[best] = true;
  }
  for (size_t i = 0; i < found; ++i) res.indices.push_back(res.steps[i].index);
  return res;
}

}  // namespace cprof
