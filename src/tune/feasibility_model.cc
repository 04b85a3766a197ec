// FeasibilityModel: a GP on the 0/1 outcome of each trial, read as a probit probability.
#include "tune/feasibility_model.h"

#include <algorithm>
#include <cmath>

namespace cprof::tune {

void FeasibilityModel::Fit(const Eigen::MatrixXd& X, const std::vector<bool>& ran, int optimize_iters) {
  const Eigen::Index n = X.rows();
  Eigen::VectorXd outcome(n);
  for (Eigen::Index i = 0; i < n; ++i) outcome[i] = ran[static_cast<size_t>(i)] ? 1.0 : 0.0;
  any_failed_ = outcome.minCoeff() < 0.5;
  if (!any_failed_) return;
  base_ = outcome.mean();
  const double sd = std::sqrt((outcome.array() - base_).square().sum() / std::max<double>(1, n - 1));
  scale_ = sd > 1e-9 ? sd : 1;
  gp_.Fit(X, (outcome.array() - base_).matrix() / scale_, optimize_iters);
}

Eigen::VectorXd FeasibilityModel::Probability(const Eigen::MatrixXd& Xs) const {
  if (!any_failed_ || !gp_.fitted()) return Eigen::VectorXd::Ones(Xs.rows());
  Eigen::VectorXd mean, var;
  gp_.Predict(Xs, &mean, &var);
  Eigen::VectorXd p(Xs.rows());
  for (Eigen::Index i = 0; i < Xs.rows(); ++i) {
    const double z = (base_ + scale_ * mean[i] - 0.5) / (scale_ * std::sqrt(var[i]) + 1e-9);
    p[i] = 0.5 * std::erfc(-z / std::sqrt(2.0));
  }
  return p;
}

}  // namespace cprof::tune
