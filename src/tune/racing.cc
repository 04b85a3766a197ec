// Racing test and mean intervals.
#include "tune/racing.h"

#include <boost/math/distributions/students_t.hpp>
#include <algorithm>
#include <cmath>

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
  double mx, vx, mb, vb;  // in units of the larger magnitude: t and df do not depend on it
  const double scale = ScaleOf(best, ScaleOf(x));
  MeanVar(x, scale, mx, vx);
  MeanVar(best, scale, mb, vb);
  // Equal up to rounding (a deterministic objective computed two ways: 8.56434819383242 against
  // 8.56434819336367) is a tie, not "clearly worse" with zero variance.
  if (mx - mb <= kTieShare * std::max(std::fabs(mx), std::fabs(mb))) return false;
  double sx = vx / static_cast<double>(x.size()), sb = vb / static_cast<double>(best.size());
  double se = std::sqrt(sx + sb);
  if (se == 0) return true;  // no noise at all, and worse
  double t = (mx - mb) / se;
  double df = (sx + sb) * (sx + sb) /
              (sx * sx / static_cast<double>(x.size() - 1) + sb * sb / static_cast<double>(best.size() - 1));
  if (!(df > 0) || !std::isfinite(df)) return false;
  boost::math::students_t dist(df);
  return boost::math::cdf(boost::math::complement(dist, t)) < alpha;
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
  return r;
}

}  // namespace cprof::tune
