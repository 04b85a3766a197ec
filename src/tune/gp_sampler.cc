// Gaussian-process Bayesian optimization: a GP on log(objective) over the unit-cube encoding,
// expected improvement over a pool of feasible unseen candidates (random + neighbours of the best).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <numeric>

#include "tune/candidates.h"
#include "tune/encoding.h"
#include "tune/gaussian_process.h"
#include "tune/sampler.h"
#include "tune/surrogate_data.h"

namespace cprof::tune {
namespace {

double EnvOr(const char* name, double fallback) {
  const char* v = std::getenv(name);
  return v ? std::atof(v) : fallback;
}

// Acklam's rational approximation of the standard normal quantile (|error| < 1.2e-9).
double NormalQuantile(double p) {
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01,  -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  if (p < 0.02425) {
    double q = std::sqrt(-2 * std::log(p));
    return (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
           ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  }
  if (p > 1 - 0.02425) return -NormalQuantile(1 - p);
  double q = p - 0.5, r = q * q;
  return (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
         (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
}

class GpSampler final : public Sampler {
 public:
  explicit GpSampler(const SearchSpace& space) : space_(space), enc_(space) {
    n_init_ = static_cast<size_t>(EnvOr("CPROF_GP_INIT", 6));
    pool_size_ = static_cast<size_t>(EnvOr("CPROF_GP_POOL", 2000));
    n_around_ = static_cast<size_t>(EnvOr("CPROF_GP_AROUND", 5));
    xi_ = EnvOr("CPROF_GP_XI", 0.0);
    acq_ = static_cast<int>(EnvOr("CPROF_GP_ACQ", 0));
    kappa_ = EnvOr("CPROF_GP_KAPPA", 1.0);
    gp_.set_linear(EnvOr("CPROF_GP_LINEAR", 0) != 0);
  }
  std::string_view name() const override { return "gp"; }

  StatusOr<Config> Propose(const History& history, Rng& rng) override {
    SurrogateData data = CollectSurrogateData(history);
    if (data.rows.size() < n_init_ || data.complete < 2) return InitialDesign(history, rng);

    // The ranking only changes when a measurement arrives; configurations found infeasible in the
    // meantime (free in replay) are skipped by walking further down the same ranking.
    if (data.rows.size() != ranked_for_ || ranked_.empty()) Rank(history, data, rng);
    while (next_ < ranked_.size()) {
      const Config& c = ranked_[next_++];
      if (!history.Seen(space_.Key(c))) return c;
    }
    Rank(history, data, rng);
    if (next_ < ranked_.size()) return ranked_[next_++];
    std::optional<Config> c = RandomUnseen(space_, history, rng);
    if (!c) return NotFound("no feasible configuration left to try");
    return *c;
  }

 private:
  // Maximin design: of a random pool, the configuration farthest from everything measured.
  StatusOr<Config> InitialDesign(const History& history, Rng& rng) {
    std::vector<Config> pool = CandidatePool(space_, history, rng, 64, {});
    if (pool.empty()) return NotFound("no feasible configuration left to try");
    std::vector<const Config*> seen;
    for (const Observation& o : history.all())
      if (o.state != TrialState::kInfeasible) seen.push_back(&o.config);
    if (seen.empty()) return pool[0];
    Eigen::MatrixXd P = enc_.EncodeAll(pool), S = enc_.EncodeAll(seen);
    size_t best = 0;
    double best_d = -1;
    for (Eigen::Index i = 0; i < P.rows(); ++i) {
      double d = (S.rowwise() - P.row(i)).rowwise().squaredNorm().minCoeff();
      if (d > best_d) best_d = d, best = static_cast<size_t>(i);
    }
    return pool[best];
  }

  bool RefitNow(size_t n) const {
    if (n < 30) return true;
    if (n < 80) return n % 3 == 0;
    return n % 8 == 0;
  }

  void Rank(const History& history, const SurrogateData& data, Rng& rng) {
    const size_t n = data.rows.size();
    std::vector<const Config*> cfgs;
    Eigen::VectorXd y(n);
    for (size_t i = 0; i < n; ++i) {
      cfgs.push_back(&history.all()[data.rows[i]].config);
      y[i] = data.y[i];
    }
    if (EnvOr("CPROF_GP_YT", 0) == 1) {  // Gaussian copula: ranks -> normal quantiles
      std::vector<size_t> ord(n);
      std::iota(ord.begin(), ord.end(), 0);
      std::stable_sort(ord.begin(), ord.end(), [&](size_t a, size_t b) { return y[a] < y[b]; });
      Eigen::VectorXd z(n);
      for (size_t r = 0; r < n;) {  // ties share their mean rank
        size_t e = r;
        while (e + 1 < n && y[ord[e + 1]] == y[ord[r]]) ++e;
        double q = ((r + e) / 2.0 + 0.5) / n;
        for (size_t k = r; k <= e; ++k) z[ord[k]] = NormalQuantile(q);
        r = e + 1;
      }
      y = z;
    }
    if (double q = EnvOr("CPROF_GP_CLIP", 0); q > 0) {  // cap bad targets at a quantile
      std::vector<double> sorted(y.data(), y.data() + n);
      std::sort(sorted.begin(), sorted.end());
      double cap = sorted[std::min(n - 1, static_cast<size_t>(q * (n - 1)))];
      y = y.cwiseMin(cap);
    }
    double mu = y.mean();
    double sd = std::sqrt((y.array() - mu).square().sum() / std::max<double>(1, n - 1));
    if (!(sd > 1e-12)) sd = 1;
    Eigen::VectorXd ys = (y.array() - mu) / sd;
    gp_.Fit(enc_.EncodeAll(cfgs), ys, RefitNow(n) ? static_cast<int>(EnvOr("CPROF_GP_ITERS", 40)) : 0);
    if (std::getenv("CPROF_GP_DEBUG") && n % 5 == 0) {
      std::fprintf(stderr, "n=%zu ls:", n);
      for (int k = 0; k < gp_.hyper().log_ls.size(); ++k) std::fprintf(stderr, " %.2f", std::exp(gp_.hyper().log_ls[k]));
      std::fprintf(stderr, " sig %.2f noise %.2g\n", std::exp(gp_.hyper().log_signal), std::exp(gp_.hyper().log_noise));
    }

    std::vector<Config> around;
    for (size_t i = 0; i < std::min(n_around_, data.order.size()); ++i)
      around.push_back(history.all()[data.rows[data.order[i]]].config);
    // Local candidates: the best configurations with one to three parameters moved (ordered ones
    // by up to two steps), so the pool sees the incumbent's surroundings densely.
    std::vector<Config> local;
    const size_t n_local = static_cast<size_t>(EnvOr("CPROF_GP_LOCAL", 0));
    for (size_t t = 0; t < n_local && !around.empty(); ++t) {
      size_t which = std::min(around.size() - 1, static_cast<size_t>(rng.Uniform() * rng.Uniform() * around.size()));
      Config c = around[which];
      int moves = 1 + static_cast<int>(rng.Index(3));
      for (int m = 0; m < moves; ++m) {
        size_t i = rng.Index(space_.size());
        const Parameter& p = space_.param(i);
        if (std::isnan(c[i]) || p.cardinality() == 1) continue;
        if (p.continuous()) c[i] = std::clamp(c[i] + 0.1 * rng.Normal(), 0.0, 1.0);
        else if (p.ordered()) c[i] = std::clamp(c[i] + (rng.Bernoulli(0.5) ? 1.0 : -1.0) * (1 + rng.Index(2)), 0.0,
                                               static_cast<double>(p.cardinality() - 1));
        else c[i] = static_cast<double>(rng.Index(p.cardinality()));
      }
      local.push_back(std::move(c));
    }
    std::vector<Config> pool = CandidatePool(space_, history, rng, pool_size_, around, local);
    ranked_.clear();
    next_ = 0;
    ranked_for_ = n;
    if (pool.empty()) return;
    Eigen::VectorXd mean, var;
    gp_.Predict(enc_.EncodeAll(pool), &mean, &var);
    double best = ys[data.order[0]];
    std::vector<double> ei(pool.size());
    for (size_t i = 0; i < pool.size(); ++i) {
      double s = std::sqrt(var[i]);
      double z = (best - mean[i] - xi_) / s;
      double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
      double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
      ei[i] = s * (z * cdf + pdf);
      if (acq_ == 1) ei[i] = -(mean[i] - kappa_ * s);  // lower confidence bound
    }
    std::vector<size_t> idx(pool.size());
    std::iota(idx.begin(), idx.end(), 0);
    std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return ei[a] > ei[b]; });
    for (size_t i : idx) ranked_.push_back(std::move(pool[i]));
  }

  const SearchSpace& space_;
  Encoder enc_;
  GaussianProcess gp_;
  size_t n_init_, pool_size_, n_around_;
  double xi_;
  int acq_;
  double kappa_;
  std::vector<Config> ranked_;
  size_t next_ = 0;
  size_t ranked_for_ = 0;
};

}  // namespace

std::unique_ptr<Sampler> MakeGpSampler(const SearchSpace& space) { return std::make_unique<GpSampler>(space); }

}  // namespace cprof::tune
