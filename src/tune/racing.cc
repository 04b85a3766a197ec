// Racing test and mean intervals.
#include "tune/racing.h"

#include <boost/math/distributions/students_t.hpp>
#include <cmath>

namespace cprof::tune {
namespace {

void MeanVar(std::span<const double> x, double& mean, double& var) {
  mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  var = 0;
  for (double v : x) var += (v - mean) * (v - mean);
  var = x.size() > 1 ? var / static_cast<double>(x.size() - 1) : 0;
}

}  // namespace

bool ClearlyWorse(std::span<const double> x, std::span<const double> best, double alpha) {
  if (x.size() < 2 || best.size() < 2) return false;
  double mx, vx, mb, vb;
  MeanVar(x, mx, vx);
  MeanVar(best, mb, vb);
  if (mx <= mb) return false;
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
  MeanVar(x, m, v);
  r.mean = r.low = r.high = m;
  if (x.size() < 2) return r;
  boost::math::students_t dist(static_cast<double>(x.size() - 1));
  double q = boost::math::quantile(boost::math::complement(dist, (1 - confidence) / 2));
  double half = q * std::sqrt(v / static_cast<double>(x.size()));
  r.low = m - half;
  r.high = m + half;
  return r;
}

}  // namespace cprof::tune
