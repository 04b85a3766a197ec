// Tree-structured Parzen Estimator (Bergstra et al. 2011, as Optuna implements it): split the
// measured trials into good and bad, model each parameter's density in both groups, propose the
// candidate (drawn from the good density) that maximizes l(x) / g(x).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <optional>
#include <utility>
#include <vector>

#include "tune/absent_values.h"
#include "tune/candidates.h"
#include "tune/sampler.h"
#include "tune/surrogate_data.h"

namespace cprof::tune {
namespace {

constexpr size_t kStartup = 8;       // random trials before the model
constexpr size_t kCandidates = 24;   // Optuna's n_ei_candidates
constexpr size_t kMaxPmf = 256;      // discrete parameters up to this size get an exact pmf

// One parameter's density in one group: a pmf over its values, or a Gaussian mixture on [0, 1].
struct Density {
  std::vector<double> pmf;                  // discrete
  std::vector<double> mus, sigmas, weights;  // continuous (unit scale); plus a uniform prior
  double prior_weight = 0;

  double LogProb(double unit_or_index) const {
    if (!pmf.empty()) return std::log(pmf[static_cast<size_t>(unit_or_index)] + 1e-300);
    double p = prior_weight;  // uniform on [0, 1]
    for (size_t i = 0; i < mus.size(); ++i) {
      double z = (unit_or_index - mus[i]) / sigmas[i];
      p += weights[i] * std::exp(-0.5 * z * z) / (sigmas[i] * 2.5066282746310002);
    }
    return std::log(p + 1e-300);
  }
  double Sample(Rng& rng) const {
    if (!pmf.empty()) {
      double u = rng.Uniform(), acc = 0;
      for (size_t i = 0; i < pmf.size(); ++i)
        if ((acc += pmf[i]) >= u) return static_cast<double>(i);
      return static_cast<double>(pmf.size() - 1);
    }
    double u = rng.Uniform() * (prior_weight + std::accumulate(weights.begin(), weights.end(), 0.0));
    if (u < prior_weight) return rng.Uniform();
    u -= prior_weight;
    for (size_t i = 0; i < mus.size(); ++i) {
      if ((u -= weights[i]) <= 0 || i + 1 == mus.size()) {
        for (int t = 0; t < 16; ++t) {  // truncated to [0, 1]
          double x = mus[i] + sigmas[i] * rng.Normal();
          if (x >= 0 && x <= 1) return x;
        }
        return std::clamp(mus[i], 0.0, 1.0);
      }
    }
    return rng.Uniform();
  }
};

// Builds a density from points (indices for pmf parameters, unit coordinates otherwise).
Density Build(const Parameter& p, const std::vector<double>& points) {
  Density d;
  const double n = static_cast<double>(points.size());
  const size_t k = p.cardinality();
  if (!p.continuous() && k <= kMaxPmf) {
    d.pmf.assign(k, 1.0 / static_cast<double>(k));  // the prior: one pseudo-observation, uniform
    double total = 1.0;
    if (p.ordered()) {
      // Discretized Gaussian kernels over indices; bandwidth shrinks with more points.
      double sigma = std::max(0.5, static_cast<double>(k) / std::pow(n + 1, 0.5) / 2.0);
      for (double x : points) {
        std::vector<double> w(k);
        double sum = 0;
        for (size_t i = 0; i < k; ++i) sum += w[i] = std::exp(-0.5 * std::pow((static_cast<double>(i) - x) / sigma, 2));
        for (size_t i = 0; i < k; ++i) d.pmf[i] += w[i] / sum;
        total += 1;
      }
    } else {
      for (double x : points) {  // Aitchison-Aitken-like: most mass on the observed category
        for (size_t i = 0; i < k; ++i) d.pmf[i] += (static_cast<double>(i) == x) ? 0.8 : 0.2 / static_cast<double>(k - 1 ? k - 1 : 1);
        total += 1;
      }
    }
    for (double& v : d.pmf) v /= total;
    return d;
  }
  // Continuous (or huge discrete ranges, on the encoded scale): bandwidth from the spread.
  std::vector<double> xs = points;
  std::sort(xs.begin(), xs.end());
  double sigma_max = 1.0, sigma_min = 1.0 / std::min(100.0, 1.0 + n);
  for (size_t i = 0; i < xs.size(); ++i) {
    double left = i > 0 ? xs[i] - xs[i - 1] : xs[i];
    double right = i + 1 < xs.size() ? xs[i + 1] - xs[i] : 1.0 - xs[i];
    d.mus.push_back(xs[i]);
    d.sigmas.push_back(std::clamp(std::max(left, right), sigma_min, sigma_max));
    d.weights.push_back(1.0);
  }
  d.prior_weight = 1.0;
  double total = n + 1.0;
  for (double& w : d.weights) w /= total;
  d.prior_weight /= total;
  return d;
}

class TpeSampler final : public Sampler {
 public:
  explicit TpeSampler(const SearchSpace& space) : space_(space) {}
  std::string_view name() const override { return "tpe"; }

  StatusOr<Config> Propose(const History& history, Rng& rng) override {
    if (history.complete() < kStartup) return ProposeRandomUnseen(space_, history, rng);
    const AbsentValues& absent = absent_.For(space_, history);
    // The candidates of one draw, best first by log l - log g. A candidate found not to exist (a
    // hidden constraint: free in replay) is followed by the next one of the same draw. Following it
    // by a fresh draw's best stalled where l / g favours values that never exist: they are never
    // measured, so each fresh draw favoured them again (on a copy of gemm where one value of a
    // parameter in 16 exists, no progress in 100,000 proposals).
    if (ranked_.MadeFor(history.evaluations()))
      if (auto c = ranked_.Next(space_, history, &absent)) return *c;
    SurrogateData data = CollectSurrogateData(history);

    // Optuna's default split: the best ceil(10%) (at most 25) are "good"; failures are "bad".
    size_t n_good = std::min<size_t>(25, static_cast<size_t>(std::ceil(0.1 * static_cast<double>(data.complete))));
    std::vector<bool> good(data.rows.size(), false);
    for (size_t i = 0; i < n_good; ++i) good[data.order[i]] = true;

    std::vector<Density> l(space_.size()), g(space_.size());
    for (size_t p = 0; p < space_.size(); ++p) {
      std::vector<double> below, above;
      for (size_t r = 0; r < data.rows.size(); ++r) {
        double c = history.all()[data.rows[r]].config[p];
        if (std::isnan(c)) continue;
        (good[r] ? below : above).push_back(Coord(p, c));
      }
      l[p] = Build(space_.param(p), below);
      g[p] = Build(space_.param(p), above);
    }
    // New draws when every candidate was infeasible or already seen (common late in small spaces).
    for (int round = 0; round < 20; ++round) {
      std::vector<Config> drawn;
      std::vector<double> scores;
      for (size_t t = 0; t < kCandidates; ++t) {
        Config c(space_.size(), std::nan(""));
        for (size_t p = 0; p < space_.size(); ++p) c[p] = Uncoord(p, l[p].Sample(rng));
        c = space_.Canonicalize(std::move(c), &rng);
        if (!Proposable(space_, history, c) || absent.RulesOut(c)) continue;
        double score = 0;
        for (size_t p = 0; p < space_.size(); ++p) {
          if (std::isnan(c[p])) continue;
          double x = Coord(p, c[p]);
          score += l[p].LogProb(x) - g[p].LogProb(x);
        }
        drawn.push_back(std::move(c));
        scores.push_back(score);
      }
      ranked_.Set(std::move(drawn), scores, history.evaluations());
      if (auto c = ranked_.Next(space_, history, &absent)) return *c;
    }
    return ProposeRandomUnseen(space_, history, rng);
  }

 private:
  bool Exact(size_t p) const {
    const Parameter& par = space_.param(p);
    return !par.continuous() && par.cardinality() <= kMaxPmf;
  }
  double Coord(size_t p, double c) const { return Exact(p) ? c : space_.param(p).Encode(c); }
  double Uncoord(size_t p, double x) const { return Exact(p) ? x : space_.param(p).Decode(x); }

  const SearchSpace& space_;
  Ranking ranked_;  // the last draw's candidates, for a number of measured trials
  AbsentValuesCache absent_;
};

}  // namespace

std::unique_ptr<Sampler> MakeTpeSampler(const SearchSpace& space) { return std::make_unique<TpeSampler>(space); }

}  // namespace cprof::tune
