// Racing test and mean intervals.
#include "tune/racing.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <boost/math/distributions/students_t.hpp>

#include "stats/welch_t.h"

namespace cprof::tune {
namespace {

// The largest magnitude among the values (1 when all are 0): the statistics are computed on the
// values divided by it, so that values near DBL_MAX (1e308) have a finite mean and variance.
double ScaleOf(std::span<const double> x, double scale = 0) {
  for (double v : x) scale = std::max(scale, std::fabs(v));
  return scale > 0 && std::isfinite(scale) ? scale : 1;
}

// Mean and sample variance of x / scale.
void MeanVar(std::span<const double> x, double scale, double& mean, double& var) {
  mean = 0;
  for (double v : x) mean += v / scale;
  mean /= static_cast<double>(x.size());
  var = 0;
  for (double v : x) var += (v / scale - mean) * (v / scale - mean);
  var = x.size() > 1 ? var / static_cast<double>(x.size() - 1) : 0;
}

// Relative differences below this are rounding, not measurements.
constexpr double kTieShare = 1e-9;

}  // namespace

bool ClearlyWorse(std::span<const double> x, std::span<const double> best, double alpha) {
  if (x.size() < 2 || best.size() < 2) return false;
  // In units of the larger magnitude (t and df do not depend on it): the squares of values near
  // 1e308 would overflow.
  const double scale = ScaleOf(best, ScaleOf(x));
  std::vector<double> xs(x.begin(), x.end()), bs(best.begin(), best.end());
  for (double& v : xs) v /= scale;
  for (double& v : bs) v /= scale;
  const WelchTTestResult t = WelchTTest(xs, bs);
  // Equal up to rounding (a deterministic objective computed two ways: 8.56434819383242 against
  // 8.56434819336367) is a tie, not "clearly worse" with zero variance.
  if (!t.valid || t.mean_diff <= kTieShare * std::max(std::fabs(t.mean_x), std::fabs(t.mean_y))) return false;
  return t.p_value / 2 < alpha;  // one-sided: x's mean is the larger
}

MeanInterval MeanConfidenceInterval(std::span<const double> x, double confidence) {
  MeanInterval r;
  if (x.empty()) return r;
  double m, v;
  const double scale = ScaleOf(x);
  MeanVar(x, scale, m, v);
  r.mean = r.low = r.high = m * scale;
  if (x.size() < 2) return r;
  boost::math::students_t dist(static_cast<double>(x.size() - 1));
  double q = boost::math::quantile(boost::math::complement(dist, (1 - confidence) / 2));
  double half = q * std::sqrt(v / static_cast<double>(x.size()));
  r.low = (m - half) * scale;
  r.high = (m + half) * scale;
  // The mean of times can't be below zero: three runs of 10, 10 and 40 ms gave [-23.0, 63.0].
  if (std::all_of(x.begin(), x.end(), [](double v) { return v >= 0; })) r.low = std::max(r.low, 0.0);
  if (std::all_of(x.begin(), x.end(), [](double v) { return v <= 0; })) r.high = std::min(r.high, 0.0);
  return r;
}

}  // namespace cprof::tune
