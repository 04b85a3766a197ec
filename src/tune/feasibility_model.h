// FeasibilityModel: the probability that a configuration runs at all (does not fail to compile or
// crash), learned from the trials so far, for samplers that weigh their choice by it.
//
//   FeasibilityModel feas;
//   feas.Fit(X, ran, /*optimize_iters=*/40);  // X: n x d in [0,1]^d; ran[i]: trial i gave a value
//   Eigen::VectorXd p = feas.Probability(Xc); // 1 everywhere while no trial has failed
//
// A Gaussian process (tune/gaussian_process.h, its own hyperparameters) regresses the 0/1 outcome;
// the probability is that its posterior at a point lies above 1/2 (a probit of mean and spread),
// so an unexplored region keeps about the share of successes among the trials, counted as the GP's
// GLS mean counts them (a cluster of trials about once). Expected improvement times
// this probability is the constrained acquisition of Gelbart, Snoek & Adams (2014).
// Not thread-safe.
#pragma once

#include <Eigen/Dense>
#include <vector>

#include "tune/gaussian_process.h"

namespace cprof::tune {

class FeasibilityModel {
 public:
  void Fit(const Eigen::MatrixXd& X, const std::vector<bool>& ran, int optimize_iters);
  Eigen::VectorXd Probability(const Eigen::MatrixXd& Xs) const;
  bool any_failed() const { return any_failed_; }

 private:
  GaussianProcess gp_;
  double base_ = 1, scale_ = 1;  // the outcome = base_ + scale_ * (the GP's standardized target)
  bool any_failed_ = false;
};

}  // namespace cprof::tune
