// The run-level (batch) test: see run_level.h.
#include "stats/run_level.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <boost/math/distributions/students_t.hpp>

namespace cprof {
namespace {

// The statistic of each of `batches` contiguous, equal-as-possible batches of `v`.
std::vector<double> BatchStatistics(std::span<const double> v, SampleStatistic stat, int batches) {
  std::vector<double> out;
  const size_t n = v.size();
  for (int b = 0; b < batches; ++b) {
    const size_t lo = n * static_cast<size_t>(b) / static_cast<size_t>(batches);
    const size_t hi = n * static_cast<size_t>(b + 1) / static_cast<size_t>(batches);
    out.push_back(stat.Of(v.subspan(lo, hi - lo)));
  }
  return out;
}

void MeanVar(const std::vector<double>& x, double* mean, double* var) {
  double m = 0;
  for (double v : x) m += v;
  m /= static_cast<double>(x.size());
  double s = 0;
  for (double v : x) s += (v - m) * (v - m);
  *mean = m;
  *var = s / static_cast<double>(x.size() - 1);
}

}  // namespace

RunLevelResult RunLevelTest(std::span<const double> before, std::span<const double> after, SampleStatistic stat,
                            int batches) {
  RunLevelResult r;
  // Fewer batches for short runs (each at least 2 steps), never fewer than kMinBatches.
  batches = static_cast<int>(std::min<size_t>(static_cast<size_t>(std::max(batches, 0)),
                                              std::min(before.size(), after.size()) / 2));
  if (batches < kMinBatches) return r;
  std::vector<double> b = BatchStatistics(before, stat, batches);
  std::vector<double> a = BatchStatistics(after, stat, batches);
  bool positive = true;
  for (double v : b) positive &= v > 0 && std::isfinite(v);
  for (double v : a) positive &= v > 0 && std::isfinite(v);
  if (positive) {
    for (double& v : b) v = std::log(v);
    for (double& v : a) v = std::log(v);
  }
  double mb, vb, ma, va;
  MeanVar(b, &mb, &vb);
  MeanVar(a, &ma, &va);
  r.valid = true;
  r.batches = batches;
  r.log_scale = positive;
  r.df = 2.0 * (batches - 1);
  const double se = std::sqrt(vb + va);
  if (!(se > 0)) {  // no batch-to-batch movement at all: any difference is beyond it
    r.t = ma == mb ? 0 : std::copysign(INFINITY, ma - mb);
    r.p_value = ma == mb ? 1 : 0;
    return r;
  }
  r.t = (ma - mb) / se;
  if (!std::isfinite(r.t)) return RunLevelResult{};
  boost::math::students_t dist(r.df);
  r.p_value = 2 * boost::math::cdf(boost::math::complement(dist, std::fabs(r.t)));
  return r;
}

}  // namespace cprof
