// GaussianProcess: a GP regression model with an ARD Matérn-5/2 kernel (Eigen), the surrogate of
// the GP sampler.
//
//   GaussianProcess gp;
//   gp.Fit(X, y, /*optimize_iters=*/60);        // X: n x d in [0,1]^d, y standardized
//   gp.Predict(Xc, &mean, &var);
//
// The mean is a constant estimated by generalized least squares (ordinary kriging), not the
// sample mean of y: once a study exploits, its points crowd the good region and their plain
// mean is too optimistic, so unexplored regions looked better than they are. The predictive
// variance carries the mean's own uncertainty (universal kriging). auto's score at B=25, sample
// mean -> GLS mean: gemm 0.47 -> 0.50 (800 seeds), held-out gemm-noshared 0.35 -> 0.37 (600),
// pnpoly 0.81 -> 0.79; at B=50 pnpoly 0.93 -> 0.86, the rest within 0.03.
// Hyperparameters (one length scale per input column, signal and noise variance) maximize the
// log marginal likelihood (profiled over the mean) plus priors (on the length scales, see
// LengthScalePrior; weak log-normal priors on signal and noise), by Rprop on the analytic
// gradient, starting from the previous fit (warm start) and from a default; the better of the two
// is kept.
// Not thread-safe.
#pragma once

#include <Eigen/Dense>

namespace cprof::tune {

class GaussianProcess {
 public:
  // The prior on each length scale l (inputs in [0, 1]).
  enum class LengthScalePrior {
    // SAAS's sparsity prior (Eriksson & Jankowiak, 2021): l^-2 is half-Cauchy(0, 0.5). Its mode is
    // l = 1.41, with tails of slope 2 in log l both ways: a column matters only when the data say
    // so, and one they do not need is still held near 1.4, so the model stays unsure away from
    // the data and the search keeps exploring.
    kSparse,
    // Hvarfner et al.'s dimension-scaled log-normal (2024): log l ~ N(sqrt(2) + log(d) / 2, 3),
    // mode 8 with 4 columns, 15 with 14. A column the data do not need is left long, so the model
    // is smooth and follows its trends: it exploits.
    kDimensionScaled,
  };

  explicit GaussianProcess(LengthScalePrior prior = LengthScalePrior::kSparse) : prior_(prior) {}

  struct Hyper {
    Eigen::VectorXd log_ls;  // log length scale per column
    double log_signal = 0;   // log signal variance
    double log_noise = -7;   // log noise variance
  };

  // Fits to (X, y). optimize_iters = 0 keeps the current hyperparameters (or defaults on the first
  // fit / a change of dimension). Returns false when the kernel matrix could not be factored.
  bool Fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, int optimize_iters);
  void Predict(const Eigen::MatrixXd& Xs, Eigen::VectorXd* mean, Eigen::VectorXd* var) const;

  const Hyper& hyper() const { return hyper_; }
  // The objective Fit maximizes (log marginal likelihood + log priors) on the data of the last Fit,
  // and its gradient in the order log_ls, log_signal, log_noise (public for the gradient test).
  double LogPosterior(const Hyper& h, Eigen::VectorXd* grad) const { return Objective(h, grad); }
  bool fitted() const { return fitted_; }

 private:
  // Log marginal likelihood + log prior, and its gradient when grad != nullptr.
  double Objective(const Hyper& h, Eigen::VectorXd* grad) const;
  Hyper Optimize(Hyper start, int iters) const;
  Eigen::MatrixXd Kernel(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const Hyper& h) const;
  Hyper Default(int d) const;

  LengthScalePrior prior_;
  Eigen::MatrixXd X_;
  Eigen::VectorXd y_;
  Hyper hyper_;
  bool have_hyper_ = false;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;     // K^-1 (y - mean_)
  double mean_ = 0;           // GLS estimate of the constant mean
  Eigen::VectorXd kinv_one_;  // K^-1 1
  bool fitted_ = false;
};

}  // namespace cprof::tune
