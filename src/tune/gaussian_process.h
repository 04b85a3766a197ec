// GaussianProcess: a GP regression model with an ARD Matérn-5/2 kernel, optionally on warped inputs
// (Eigen), the surrogate of the GP sampler.
//
//   GaussianProcess gp(/*warp_inputs=*/true);
//   gp.Fit(X, y, /*optimize_iters=*/60);        // X: n x d in [0,1]^d, y standardized
//   gp.Predict(Xc, &mean, &var);
//
// With warp_inputs, each input column first goes through a Kumaraswamy CDF, w(x) = 1 - (1 - x^a)^b
// (Snoek et al., "Input warping for Bayesian optimization of non-stationary functions", 2014): it
// keeps 0 and 1 in place and learns where the levels in between sit, so the model can say "the
// step from the third to the fourth value matters more than the others" with two numbers per
// column. Hyperparameters (one length scale and, when warping, two warp exponents per input
// column; signal and noise variance) maximize the log marginal likelihood plus priors (a sparsity
// prior on the length scales: a column matters only when the data say so; log-normal priors on
// the warp exponents around 1, the identity; weak log-normal priors on signal and noise), by
// Rprop on the analytic gradient, starting from the previous fit (warm start) and from a default;
// the better of the two is kept.
// Not thread-safe.
#pragma once

#include <Eigen/Dense>

namespace cprof::tune {

class GaussianProcess {
 public:
  struct Hyper {
    Eigen::VectorXd log_ls;  // log length scale per column
    double log_signal = 0;   // log signal variance
    double log_noise = -7;   // log noise variance
    // log Kumaraswamy exponents per column (0, 0: identity); empty when not warping
    Eigen::VectorXd log_warp_a, log_warp_b;
  };

  explicit GaussianProcess(bool warp_inputs = false) : warp_inputs_(warp_inputs) {}

  // Fits to (X, y). optimize_iters = 0 keeps the current hyperparameters (or defaults on the first
  // fit / a change of dimension). Returns false when the kernel matrix could not be factored.
  bool Fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, int optimize_iters);
  void Predict(const Eigen::MatrixXd& Xs, Eigen::VectorXd* mean, Eigen::VectorXd* var) const;

  const Hyper& hyper() const { return hyper_; }
  // The objective maximized by Fit for the data of the last Fit call, and its gradient in the
  // order log_ls, log_signal, log_noise[, log_warp_a, log_warp_b] (exposed for the gradient test).
  double LogPosterior(const Hyper& h, Eigen::VectorXd* grad) const { return Objective(h, grad); }
  bool fitted() const { return fitted_; }

 private:
  // Log marginal likelihood + log prior, and its gradient when grad != nullptr.
  double Objective(const Hyper& h, Eigen::VectorXd* grad) const;
  Hyper Optimize(Hyper start, int iters) const;
  Eigen::MatrixXd Kernel(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const Hyper& h) const;
  Hyper Default(int d) const;

  bool warp_inputs_;
  Eigen::MatrixXd X_;
  Eigen::VectorXd y_;
  Hyper hyper_;
  bool have_hyper_ = false;
  Eigen::LLT<Eigen::MatrixXd> llt_;
  Eigen::VectorXd alpha_;
  bool fitted_ = false;
};

}  // namespace cprof::tune
