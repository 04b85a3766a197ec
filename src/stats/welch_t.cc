// Welch's t-test with Boost.Math's Student t distribution.
#include "stats/welch_t.h"

#include <cmath>
#include <limits>

#include <boost/math/distributions/students_t.hpp>

namespace cprof {
namespace {

struct MeanVar {
  double mean = 0;
  double var = 0;  // sample variance (n - 1)
};

MeanVar MeanAndVariance(std::span<const double> v) {
  MeanVar r;
  double sum = 0;
  for (double x : v) sum += x;
  r.mean = sum / static_cast<double>(v.size());
  double m2 = 0;
  for (double x : v) m2 += (x - r.mean) * (x - r.mean);
  r.var = m2 / static_cast<double>(v.size() - 1);
  return r;
}

}  // namespace

WelchTTestResult WelchTTest(std::span<const double> x, std::span<const double> y, double confidence) {
  WelchTTestResult r;
  if (x.size() < 2 || y.size() < 2) {
    r.p_value = std::numeric_limits<double>::quiet_NaN();
    return r;
  }
  const MeanVar a = MeanAndVariance(x);
  const MeanVar b = MeanAndVariance(y);
  const double nx = static_cast<double>(x.size());
  const double ny = static_cast<double>(y.size());
  const double vx = a.var / nx;
  const double vy = b.var / ny;
  r.valid = true;
  r.mean_x = a.mean;
  r.mean_y = b.mean;
  r.mean_diff = a.mean - b.mean;
  r.se = std::sqrt(vx + vy);
  if (r.se == 0) {  // both samples constant: no noise, any difference is certain
    r.t = r.mean_diff == 0 ? 0 : std::copysign(std::numeric_limits<double>::infinity(), r.mean_diff);
    r.df = nx + ny - 2;
    r.p_value = r.mean_diff == 0 ? 1.0 : 0.0;
    r.ci_low = r.ci_high = r.mean_diff;
    return r;
  }
  r.t = r.mean_diff / r.se;
  r.df = (vx + vy) * (vx + vy) / (vx * vx / (nx - 1) + vy * vy / (ny - 1));
  boost::math::students_t dist(r.df);
  r.p_value = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(r.t)));
  if (r.p_value > 1) r.p_value = 1;
  const double q = boost::math::quantile(boost::math::complement(dist, (1 - confidence) / 2));
  r.ci_low = r.mean_diff - q * r.se;
  r.ci_high = r.mean_diff + q * r.se;
  return r;
}

}  // namespace cprof
