// BCa bootstrap: resampling, jackknife acceleration, and the interval and p-value from replicates.
#include "stats/bootstrap.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <boost/math/distributions/normal.hpp>
#include <fmt/core.h>

#include "stats/quantile.h"
#include "stats/random.h"

namespace cprof {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// numpy's _lerp, as in quantile.cc, so jackknife quantiles equal np.percentile's.
double Lerp(double a, double b, double t) { return t >= 0.5 ? b - (b - a) * (1 - t) : a + (b - a) * t; }

double Phi(double z) { return boost::math::cdf(boost::math::normal(), z); }
double PhiInv(double p) { return boost::math::quantile(boost::math::normal(), p); }

double Mean(std::span<const double> v) { return std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(v.size()); }

// The statistic of `buf`, which it may reorder.
double OfScratch(std::vector<double>& buf, SampleStatistic stat) {
  if (stat.kind == SampleStatistic::Kind::kMean) return Mean(buf);
  const size_t n = buf.size();
  const double h = static_cast<double>(n - 1) * stat.q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  std::nth_element(buf.begin(), buf.begin() + static_cast<ptrdiff_t>(lo), buf.end());
  if (lo + 1 >= n) return buf[lo];
  const double next = *std::min_element(buf.begin() + static_cast<ptrdiff_t>(lo + 1), buf.end());
  return Lerp(buf[lo], next, h - static_cast<double>(lo));
}

// Fraction of replicates below `score`, ties counted half (scipy's _percentile_of_score).
double ShareBelow(std::span<const double> sorted, double score) {
  const auto lt = std::lower_bound(sorted.begin(), sorted.end(), score) - sorted.begin();
  const auto le = std::upper_bound(sorted.begin(), sorted.end(), score) - sorted.begin();
  return static_cast<double>(lt + le) / (2.0 * static_cast<double>(sorted.size()));
}

BootstrapResult Degenerate(double estimate, int resamples) {
  BootstrapResult r;
  r.valid = true;
  r.degenerate = true;
  r.estimate = r.low = r.high = estimate;
  r.resamples = resamples;
  r.p_value = kNaN;
  return r;
}

}  // namespace

std::string SampleStatistic::Name() const {
  if (kind == Kind::kMean) return "mean";
  if (q == 0.5) return "median";
  return fmt::format("p{:g}", q * 100);
}

double SampleStatistic::Of(std::span<const double> values) const {
  if (values.empty()) return kNaN;
  if (kind == Kind::kMean) return cprof::Mean(values);
  std::vector<double> copy(values.begin(), values.end());
  std::sort(copy.begin(), copy.end());
  return QuantileSorted(std::span<const double>(copy), q);
}

std::vector<double> JackknifeValues(std::span<const double> sample, SampleStatistic stat) {
  std::vector<double> s(sample.begin(), sample.end());
  std::sort(s.begin(), s.end());
  const size_t n = s.size();
  std::vector<double> out(n);
  if (n < 2) return {};
  if (stat.kind == SampleStatistic::Kind::kMean) {
    const double sum = std::accumulate(s.begin(), s.end(), 0.0);
    for (size_t r = 0; r < n; ++r) out[r] = (sum - s[r]) / static_cast<double>(n - 1);
    return out;
  }
  // Leaving out sorted position r: element j of what remains is s[j] below r, s[j + 1] from r on.
  const double h = static_cast<double>(n - 2) * stat.q;
  const size_t lo = static_cast<size_t>(std::floor(h));
  const double t = h - static_cast<double>(lo);
  for (size_t r = 0; r < n; ++r) {
    auto at = [&](size_t j) { return j < r ? s[j] : s[j + 1]; };
    out[r] = lo + 1 >= n - 1 ? at(n - 2) : Lerp(at(lo), at(lo + 1), t);
  }
  return out;
}

BootstrapResult BcaFromReplicates(double estimate, std::vector<double> replicates,
                                  const std::vector<std::vector<double>>& jackknife, const BootstrapOptions& options) {
  const int b = static_cast<int>(replicates.size());
  if (b == 0) return Degenerate(estimate, 0);
  std::sort(replicates.begin(), replicates.end());
  if (replicates.front() == replicates.back()) return Degenerate(estimate, b);

  // Acceleration: scipy's _bca_interval, summed over the samples.
  double num = 0, den = 0;
  for (const std::vector<double>& jk : jackknife) {
    if (jk.empty()) continue;
    const double n = static_cast<double>(jk.size());
    const double dot = Mean(jk);
    double u2 = 0, u3 = 0;
    for (double v : jk) {
      const double u = (n - 1) * (dot - v);
      u2 += u * u;
      u3 += u * u * u;
    }
    num += u3 / (n * n * n);
    den += u2 / (n * n);
  }
  if (den <= 0) return Degenerate(estimate, b);
  const double a = num / (6 * std::pow(den, 1.5));

  const std::span<const double> sorted(replicates);
  const double share = ShareBelow(sorted, estimate);
  if (share <= 0 || share >= 1) return Degenerate(estimate, b);  // z0 infinite
  const double z0 = PhiInv(share);

  const double alpha = (1 - options.confidence) / 2;
  auto adjusted = [&](double z_alpha) {
    const double num_z = z0 + z_alpha;
    return Phi(z0 + num_z / (1 - a * num_z));
  };
  const double z_alpha = PhiInv(alpha);
  BootstrapResult r;
  r.valid = true;
  r.estimate = estimate;
  r.z0 = z0;
  r.acceleration = a;
  r.resamples = b;
  r.low = QuantileSorted(sorted, adjusted(z_alpha));
  r.high = QuantileSorted(sorted, adjusted(-z_alpha));

  if (options.null_value) {
    // Solve adjusted(z) = share of replicates below the null value for z:
    // PhiInv(p0) - z0 = y / (1 - a y) with y = z0 + z, so y = w / (1 + a w).
    const double half = 0.5 / static_cast<double>(b);
    const double p0 = std::clamp(ShareBelow(sorted, *options.null_value), half, 1 - half);
    const double w = PhiInv(p0) - z0;
    const double denom = 1 + a * w;
    if (denom <= 0) {
      r.p_value = 2 * half;  // beyond the range BCa can map: as extreme as the replicates allow
    } else {
      const double level = Phi(w / denom - z0);
      r.p_value = std::clamp(2 * std::min(level, 1 - level), 0.0, 1.0);
    }
  }
  return r;
}

BootstrapResult BootstrapBca(std::span<const double> sample, SampleStatistic stat, const BootstrapOptions& options) {
  if (sample.size() < 2) return BootstrapResult{};
  const double estimate = stat.Of(sample);
  Random rng(options.seed);
  const size_t n = sample.size();
  std::vector<double> buf(n);
  std::vector<double> replicates(static_cast<size_t>(std::max(options.resamples, 0)));
  for (double& rep : replicates) {
    for (double& v : buf) v = sample[rng.Index(n)];
    rep = OfScratch(buf, stat);
  }
  return BcaFromReplicates(estimate, std::move(replicates), {JackknifeValues(sample, stat)}, options);
}

BootstrapResult BootstrapBcaRatio(std::span<const double> before, std::span<const double> after, SampleStatistic stat,
                                  const BootstrapOptions& options) {
  if (before.size() < 2 || after.size() < 2) return BootstrapResult{};
  const double sb = stat.Of(before);
  const double sa = stat.Of(after);
  if (sb == 0 || std::isnan(sb) || std::isnan(sa)) return BootstrapResult{};  // ratio undefined
  const double estimate = sa / sb;
  Random rng(options.seed);
  std::vector<double> buf_b(before.size()), buf_a(after.size());
  std::vector<double> replicates(static_cast<size_t>(std::max(options.resamples, 0)));
  for (double& rep : replicates) {
    for (double& v : buf_b) v = before[rng.Index(before.size())];
    for (double& v : buf_a) v = after[rng.Index(after.size())];
    rep = OfScratch(buf_a, stat) / OfScratch(buf_b, stat);
  }
  // Jackknife each sample in turn with the other held whole (scipy's multi-sample BCa).
  std::vector<double> jk_before = JackknifeValues(before, stat);
  for (double& v : jk_before) v = sa / v;
  std::vector<double> jk_after = JackknifeValues(after, stat);
  for (double& v : jk_after) v = v / sb;
  return BcaFromReplicates(estimate, std::move(replicates), {std::move(jk_before), std::move(jk_after)}, options);
}

}  // namespace cprof
