// Gaussian-process Bayesian optimization: a GP on log(objective) over the unit-cube encoding,
// expected improvement, weighed by the chance that a configuration runs at all, over a pool of
// feasible unseen candidates (random + neighbours of the best).
#include <algorithm>
#include <cmath>
#include <vector>

#include "tune/absent_values.h"
#include "tune/candidates.h"
#include "tune/encoding.h"
#include "tune/feasibility_model.h"
#include "tune/gaussian_process.h"
#include "tune/sampler.h"
#include "tune/surrogate_data.h"

namespace cprof::tune {
namespace {

// Settings measured on the replayed Kernel Tuner spaces (bench/tune_replay_bench, 200 seeds): a
// smaller or larger initial design or design pool, a larger pool, more neighbourhoods, dense local
// candidates, an exploration margin (xi), LCB, a linear trend kernel, rank (copula) or clipped
// targets and longer fits were all no better at 25-50 evaluations.
constexpr size_t kInitialDesign = 6;  // design points before the first model
constexpr size_t kDesignRetries = 3;  // more design points while some of the first failed
constexpr size_t kDesignPool = 64;    // existing candidates the design chooses among
constexpr size_t kPoolSize = 2000;    // existing candidates scored by expected improvement ...
constexpr size_t kPoolCap = 8000;     // ... drawn from at most this many (gemm: about 20% exist)
constexpr size_t kAround = 5;         // best configurations whose neighbours join the pool
constexpr int kFitIterations = 40;    // Rprop steps per hyperparameter fit
constexpr double kFlatRatio = 1.7;    // LooksFlat: the pool's median prediction / the best measured

// Whether the landscape looks flat: the GP's median prediction over the candidate pool within
// kFlatRatio of the best value measured, as a ratio of the objective itself (a time, or the
// inverse of a rate; log-scaled targets only). `mean` and `best` are standardized, `sd` the
// standard deviation of the log targets. The model corrects for the study's own bias: the
// measured points crowd the good region, so their median would call gemm flat. Measured at 8 / 12
// / 18 trials (100 seeds): pnpoly's cuts where random search is strong 1.39-1.49 / 1.50-1.54 /
// 1.54-1.55 at the median and at most 1.68 / 1.89 / 1.77 for 9 in 10 studies; gemm and
// convolution 1.95-2.26 / 2.35-2.60 / 2.46-2.99, at least 1.55-1.79 / 1.75-1.99 / 2.00-2.40.
bool LooksFlat(const Eigen::VectorXd& mean, double best, double sd, SurrogateData::Scale scale) {
  if (scale == SurrogateData::Scale::kLinear || mean.size() == 0) return false;
  std::vector<double> m(mean.data(), mean.data() + mean.size());
  auto mid = m.begin() + static_cast<std::ptrdiff_t>(m.size() / 2);
  std::nth_element(m.begin(), mid, m.end());
  return (*mid - best) * sd < std::log(kFlatRatio);
}

// A pool size that holds about `wanted` configurations that exist, by the share of the proposals
// that existed among those `absent` does not rule out (gemm: about 0.2), up to `cap`.
size_t PoolFor(size_t wanted, const AbsentValues& absent, double cap) {
  return static_cast<size_t>(std::min(cap, static_cast<double>(wanted) / absent.ExistingShare()));
}

class GpSampler final : public Sampler {
 public:
  explicit GpSampler(const SearchSpace& space) : space_(space), enc_(space) {}
  std::string_view name() const override { return "gp"; }

  StatusOr<Config> Propose(const History& history, Rng& rng) override {
    const AbsentValues& absent = absent_.For(space_, history);
    if (InDesign(history)) return InitialDesign(history, absent, rng);

    // The ranking only changes when a measurement arrives; configurations found infeasible in the
    // meantime (free in replay) are skipped by walking further down the same ranking.
    if (ranked_.MadeFor(history.evaluations()))
      if (auto c = ranked_.Next(space_, history, &absent)) return *c;
    SurrogateData data = CollectSurrogateData(history);
    Rank(history, data, absent, rng);
    if (auto c = ranked_.Next(space_, history, &absent)) return *c;
    return ProposeRandomUnseen(space_, history, rng);
  }

 private:
  // The design runs until kInitialDesign configurations have been measured, taking up to
  // kDesignRetries more points in place of failed ones: a failure says where the space does not
  // run, not how fast it is, and the first model otherwise starts from fewer times. Spaces without
  // failures are unchanged. auto's score at 25 (seeds), before -> after: held-out gemm-failrandom
  // 0.43 -> 0.46 (800), gemm-failthreads 0.46 -> 0.47 (400), convolution (23% fail) 0.83 -> 0.83
  // (800), gemm-failregs 0.49 -> 0.49, pnpoly 0.79 -> 0.79 (200); at 50 (200): pnpoly 0.86 -> 0.89,
  // gemm-failthreads 0.70 -> 0.75, gemm-failregs 0.79 -> 0.76, convolution 0.92 -> 0.92.
  static bool InDesign(const History& history) {
    if (history.complete() < 2) return true;
    return history.complete() < kInitialDesign && history.evaluations() < kInitialDesign + kDesignRetries;
  }

  // Space-filling design in every projection (MaxPro, Joseph, Gul & Ba 2015), built one point at
  // a time: of a random pool, the configuration with the least sum over the measured points of
  // 1 / (geometric mean over parameters of (distance in that parameter^2 + eps)). A parameter's
  // distance is its encoded one (a categorical's is 1 when the value differs). Maximin in the
  // whole cube, used before, favours the corners, where kernel spaces are often at their worst,
  // and repeats values of single parameters. auto's score (200 seeds; gemm 800 at 25), before ->
  // after: B=25 gemm 0.47 -> 0.47, convolution 0.84 -> 0.85, pnpoly 0.79 -> 0.79, held-out
  // gemm-noshared 0.29 -> 0.39, gemm-narrowvec 0.62 -> 0.67, others within +-0.02; B=50 gemm
  // 0.70 -> 0.75, pnpoly 0.85 -> 0.89, gemm-noshared 0.44 -> 0.52. eps 0.001-0.01 cost pnpoly
  // 0.07-0.11 at 25; 0.1-0.2 were no better.
  //
  // Configurations that turn out not to exist (hidden constraints; free in replay) are skipped by
  // walking down the pool's ranking, as the model's ranking is walked below. Each miss used to be
  // followed by the best of a fresh pool instead, and where the criterion favours values that
  // never exist (a parameter of which one value in 16 is ever valid) it chose a nonexistent one
  // every time: a 25-evaluation study of such a copy of gemm stalled after 2 evaluations and
  // 50,000 proposals. The pool holds about kDesignPool configurations that exist (PoolFor, up to
  // 512). A pool of 64 whatever the share lost 0.09 on convolution at 25 (0.83 -> 0.74, 200 seeds).
  StatusOr<Config> InitialDesign(const History& history, const AbsentValues& absent, Rng& rng) {
    const size_t measured = history.size() - history.infeasible();  // measured or running
    if (design_.MadeFor(measured))
      if (auto c = design_.Next(space_, history, &absent)) return *c;
    RankDesign(history, absent, rng, measured);
    if (auto c = design_.Next(space_, history, &absent)) return *c;
    return ProposeRandomUnseen(space_, history, rng);
  }

  // A fresh pool, ordered by the MaxPro criterion against the configurations measured (or
  // running) so far, best first; in random order for the first point.
  void RankDesign(const History& history, const AbsentValues& absent, Rng& rng, size_t measured) {
    constexpr double kEps = 0.05;
    std::vector<Config> pool =
        CandidatePool(space_, history, rng, PoolFor(kDesignPool, absent, 512), {}, {}, &absent);
    std::vector<const Config*> seen;
    for (size_t i : history.existing()) seen.push_back(&history.all()[i].config);
    if (seen.empty() || pool.empty()) {  // the first point: the pool's random order
      const std::vector<double> none(pool.size());
      return design_.Set(std::move(pool), none, measured);
    }
    Eigen::MatrixXd P = enc_.EncodeAll(pool), S = enc_.EncodeAll(seen);
    std::vector<double> crit(pool.size());  // negated: the least sum is the best
    for (Eigen::Index i = 0; i < P.rows(); ++i) {
      double sum = 0;
      for (Eigen::Index j = 0; j < S.rows(); ++j) {
        double log_prod = 0;
        int params = 0;
        for (size_t q = 0; q < space_.size(); ++q) {
          const int c0 = enc_.column(q), w = enc_.width(q);
          if (w == 0) continue;
          double d2 = (P.row(i).segment(c0, w) - S.row(j).segment(c0, w)).squaredNorm();
          log_prod += std::log(d2 + kEps);
          ++params;
        }
        sum += std::exp(-log_prod / std::max(params, 1));
      }
      crit[static_cast<size_t>(i)] = -sum;
    }
    design_.Set(std::move(pool), crit, measured);
  }

  bool RefitNow(size_t n) const {
    if (n < 30) return true;
    if (n < 80) return n % 3 == 0;
    return n % 8 == 0;
  }

  // Failed trials (compile errors, crashes) do not enter the regression as a made-up worst value:
  // a separate model learns where trials fail and weighs expected improvement by the chance of
  // running. Imputing the worst value taught the GP that the neighbourhood of a failure is slow,
  // which is wrong where failures border the optimum (a tile too large for the registers next to
  // the best tile). auto's score at B=25 / 50 (200 seeds), imputation -> this: convolution (23%
  // of it fails) 0.85 -> 0.82 / 0.92 -> 0.89, pnpoly 0.79 -> 0.81 / 0.89 -> 0.93, conv-nopad
  // 0.85 -> 0.84 / 0.93 -> 0.92; gemm with synthetic failures (bench/make_derived_spaces.py)
  // where the work per thread exceeds the optimum's 0.22 -> 0.37 / 0.50 -> 0.71, at 512+ threads
  // per block 0.34 -> 0.39, on a random tenth 0.39 -> 0.40. Spaces where nothing fails are
  // unchanged. docs/tune.md has the variants measured.
  void Rank(const History& history, const SurrogateData& data, const AbsentValues& absent, Rng& rng) {
    const size_t n = data.rows.size();
    std::vector<const Config*> all, cfgs;
    std::vector<bool> ran(n);
    std::vector<double> y;
    for (size_t i = 0; i < n; ++i) {
      all.push_back(&history.all()[data.rows[i]].config);
      ran[i] = !data.failed[i];
      if (!ran[i]) continue;
      cfgs.push_back(all.back());
      y.push_back(data.y[i]);
    }
    const int iters = RefitNow(n) ? kFitIterations : 0;
    feasibility_.Fit(enc_.EncodeAll(all), ran, iters);
    const Eigen::Map<const Eigen::VectorXd> yv(y.data(), static_cast<Eigen::Index>(y.size()));
    const double mu = yv.mean();
    double sd = std::sqrt((yv.array() - mu).square().sum() / std::max<double>(1, y.size() - 1.0));
    if (!(sd > 1e-12)) sd = 1;
    Eigen::VectorXd ys = (yv.array() - mu) / sd;
    const Eigen::MatrixXd Xy = enc_.EncodeAll(cfgs);
    gp_.Fit(Xy, ys, iters);

    std::vector<Config> around;
    for (size_t i = 0; i < std::min(kAround, data.order.size()); ++i)
      around.push_back(history.all()[data.rows[data.order[i]]].config);
    // The pool holds about kPoolSize configurations that exist: its size is divided by the share
    // of proposals that existed (up to kPoolCap), and values found never to exist are left out
    // (absent_values.h). Without them EI ranked a never-existing value first, and each evaluation
    // walked past thousands of absent candidates. A pool of 2,000 whatever the share, before ->
    // this (auto, 200 seeds): B=25 gemm 0.51 -> 0.52 (1,600 seeds), convolution 0.81 -> 0.83
    // (600), conv-nopad 0.84 -> 0.88, gemm-failthreads 0.46 -> 0.50; B=50 convolution 0.89 ->
    // 0.92, gemm-noshared 0.53 -> 0.58, gemm-failthreads 0.74 -> 0.70; others within 0.02. About
    // 4,000 existing, up to 16,000: convolution 0.87 but pnpoly 0.76 (0.79) at 25, 3x slower.
    std::vector<Config> pool =
        CandidatePool(space_, history, rng, PoolFor(kPoolSize, absent, kPoolCap), around, {}, &absent);
    if (pool.empty()) return ranked_.Set({}, {}, n);
    Eigen::VectorXd mean, var;
    const Eigen::MatrixXd X = enc_.EncodeAll(pool);
    gp_.Predict(X, &mean, &var);
    const double best = ys.minCoeff();
    // Where most of the space is near the best (many configurations within a few per cent of the
    // optimum, random search already strong), the sparse model's doubt about every column spends
    // the study moving the ones that hardly matter; there the smooth model ranks the pool.
    if (!y.empty() && LooksFlat(mean, best, sd, data.scale)) {
      smooth_gp_.Fit(Xy, ys, RefitNow(n) || !smooth_gp_.fitted() ? kFitIterations : 0);
      smooth_gp_.Predict(X, &mean, &var);
    }
    const Eigen::VectorXd p_runs = feasibility_.Probability(X);
    std::vector<double> ei(pool.size());
    for (size_t i = 0; i < pool.size(); ++i) {
      double s = std::sqrt(var[i]);
      double z = (best - mean[i]) / s;
      double cdf = 0.5 * std::erfc(-z / std::sqrt(2.0));
      double pdf = std::exp(-0.5 * z * z) / std::sqrt(2 * M_PI);
      // In logs: late in a study, expected improvement is tiny everywhere (1e-7), and a region where
      // trials fail must stay behind it however small both numbers are.
      ei[i] = std::log(std::max(s * (z * cdf + pdf), 1e-300)) + std::log(std::max(p_runs[i], 1e-300));
    }
    ranked_.Set(std::move(pool), ei, n);
  }

  const SearchSpace& space_;
  Encoder enc_;
  GaussianProcess gp_;
  GaussianProcess smooth_gp_{GaussianProcess::LengthScalePrior::kDimensionScaled};
  FeasibilityModel feasibility_;
  AbsentValuesCache absent_;
  Ranking design_;  // the design's pool by MaxPro, for a number of measured (or running) trials
  Ranking ranked_;  // the model's pool by EI, for a number of measured trials
};

}  // namespace

std::unique_ptr<Sampler> MakeGpSampler(const SearchSpace& space) { return std::make_unique<GpSampler>(space); }

}  // namespace cprof::tune
