// GP regression: Matérn-5/2 ARD kernel, a constant mean by generalized least squares,
// marginal-likelihood fitting by Rprop, prediction.
#include "tune/gaussian_process.h"

#include <algorithm>
#include <cmath>

namespace cprof::tune {
namespace {

constexpr double kSqrt5 = 2.23606797749979;
constexpr double kLogLsMin = -4.6, kLogLsMax = 3.0;   // length scales 0.01 .. 20 (inputs in [0, 1])
constexpr double kLogSigMin = -4.0, kLogSigMax = 4.0;
constexpr double kLogNoiseMin = -13.8, kLogNoiseMax = 0.0;  // 1e-6 .. 1 of a standardized target
// Length scales start around 0.5. The sparse prior is SAAS's (Eriksson & Jankowiak, 2021): the
// inverse squared length scale rho = l^-2 is half-Cauchy(0, kLsTau), so a column stays nearly
// irrelevant (long length scale) unless the data ask for it — with 10 columns and 20 points the
// data support only a few short ones. Bench scores of auto at B=25/50 (200 seeds), against a
// log-normal prior around 0.5: convolution 0.81 -> 0.84 / 0.91 -> 0.92, gemm 0.45 -> 0.48 /
// 0.71 -> 0.70, pnpoly 0.70 -> 0.79 / 0.79 -> 0.85; gemm B=100 0.905 -> 0.90. tau 0.3, 0.7, 1,
// 1.5, 3 were no better on gemm B=25.
constexpr double kLsStart = -0.7;
constexpr double kLsTau = 0.5;
// The dimension-scaled prior (Hvarfner, Hellsten & Nardi, 2024): log l ~ N(kDsMean + log(d) / 2,
// kDsVar).
constexpr double kDsMean = 1.4142135623730951, kDsVar = 3.0;
// Weak log-normal priors: signal around 1, noise small.
constexpr double kSigPriorSd = 1.5;
constexpr double kNoisePriorMean = -9.0, kNoisePriorSd = 3.0;

// Squared scaled distances between rows of A and B.
Eigen::MatrixXd SqDist(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B) {
  Eigen::VectorXd a2 = A.rowwise().squaredNorm(), b2 = B.rowwise().squaredNorm();
  Eigen::MatrixXd d = (-2.0 * A * B.transpose()).colwise() + a2;
  d.rowwise() += b2.transpose();
  return d.cwiseMax(0.0);
}

// Log density of log(l) when rho = l^-2 ~ half-Cauchy(0, kLsTau), up to a constant (the -2 log l
// is the Jacobian of rho -> log l), and its derivative.
double LogLsPrior(double log_l) {
  double q = std::exp(-4 * log_l) / (kLsTau * kLsTau);  // (rho / tau)^2
  return -std::log1p(q) - 2 * log_l;
}
double LogLsPriorGrad(double log_l) {
  double q = std::exp(-4 * log_l) / (kLsTau * kLsTau);
  return 4 * q / (1 + q) - 2;
}

// The generalized-least-squares estimate of a constant mean, (1' K^-1 y) / (1' K^-1 1), and
// K^-1 1 when asked for.
double GlsMean(const Eigen::LLT<Eigen::MatrixXd>& llt, const Eigen::VectorXd& y, Eigen::VectorXd* kinv_one) {
  Eigen::VectorXd k1 = llt.solve(Eigen::VectorXd::Ones(y.size()));
  const double m = k1.dot(y) / k1.sum();
  if (kinv_one) *kinv_one = std::move(k1);
  return m;
}

}  // namespace

GaussianProcess::Hyper GaussianProcess::Default(int d) const {
  Hyper h;
  h.log_ls = Eigen::VectorXd::Constant(d, kLsStart);
  h.log_signal = 0;
  h.log_noise = -9;
  return h;
}

Eigen::MatrixXd GaussianProcess::Kernel(const Eigen::MatrixXd& A, const Eigen::MatrixXd& B, const Hyper& h) const {
  Eigen::RowVectorXd inv = (-h.log_ls).array().exp().transpose();
  Eigen::MatrixXd r = SqDist(A.array().rowwise() * inv.array(), B.array().rowwise() * inv.array()).cwiseSqrt();
  double s2 = std::exp(h.log_signal);
  Eigen::MatrixXd k =
      (s2 * (1.0 + kSqrt5 * r.array() + (5.0 / 3.0) * r.array().square()) * (-kSqrt5 * r.array()).exp()).matrix();
  return k;
}

double GaussianProcess::Objective(const Hyper& h, Eigen::VectorXd* grad) const {
  const int n = static_cast<int>(X_.rows()), d = static_cast<int>(X_.cols());
  Eigen::RowVectorXd inv = (-h.log_ls).array().exp().transpose();
  Eigen::MatrixXd Xs = X_.array().rowwise() * inv.array();
  Eigen::MatrixXd r = SqDist(Xs, Xs).cwiseSqrt();
  double s2 = std::exp(h.log_signal), noise = std::exp(h.log_noise);
  Eigen::ArrayXXd e = (-kSqrt5 * r.array()).exp();
  Eigen::MatrixXd Kf = (s2 * (1.0 + kSqrt5 * r.array() + (5.0 / 3.0) * r.array().square()) * e).matrix();
  Eigen::MatrixXd K = Kf;
  K.diagonal().array() += noise + 1e-9;
  Eigen::LLT<Eigen::MatrixXd> llt(K);
  if (llt.info() != Eigen::Success) return -1e300;
  // The likelihood is profiled over the constant mean: at its GLS estimate it is at its largest for
  // these hyperparameters, so its gradient is the fixed-mean one (envelope theorem).
  const Eigen::VectorXd resid = (y_.array() - GlsMean(llt, y_, nullptr)).matrix();
  Eigen::VectorXd alpha = llt.solve(resid);
  double logdet = 2.0 * llt.matrixLLT().diagonal().array().log().sum();
  double lml = -0.5 * resid.dot(alpha) - 0.5 * logdet - 0.5 * n * std::log(2 * M_PI);
  double prior = 0;
  const bool sparse = prior_ == LengthScalePrior::kSparse;
  const double ds_mean = kDsMean + 0.5 * std::log(static_cast<double>(d));
  for (int k = 0; k < d; ++k) {
    prior += sparse ? LogLsPrior(h.log_ls[k]) : -0.5 * std::pow(h.log_ls[k] - ds_mean, 2) / kDsVar;
  }
  prior -= 0.5 * std::pow(h.log_signal / kSigPriorSd, 2);
  prior -= 0.5 * std::pow((h.log_noise - kNoisePriorMean) / kNoisePriorSd, 2);
  if (grad) {
    grad->resize(d + 2);
    Eigen::MatrixXd Kinv = llt.solve(Eigen::MatrixXd::Identity(n, n));
    Eigen::MatrixXd W = alpha * alpha.transpose() - Kinv;
    // dK/dlog(l_k) = s2 * 5/3 * (1 + sqrt5 r) exp(-sqrt5 r) * (dx_k / l_k)^2
    Eigen::MatrixXd G = (W.array() * (s2 * (5.0 / 3.0) * (1.0 + kSqrt5 * r.array()) * e)).matrix();
    Eigen::VectorXd rowsum = G.rowwise().sum();
    for (int k = 0; k < d; ++k) {
      Eigen::VectorXd col = Xs.col(k);
      // sum_ij G_ij (x_ik - x_jk)^2 = 2 (sum_i x_i^2 rowsum_i) - 2 x^T G x  (G symmetric)
      double s = 2.0 * (col.array().square() * rowsum.array()).sum() - 2.0 * col.dot(G * col);
      (*grad)[k] = 0.5 * s + (sparse ? LogLsPriorGrad(h.log_ls[k]) : -(h.log_ls[k] - ds_mean) / kDsVar);
    }
    (*grad)[d] = 0.5 * (W.array() * Kf.array()).sum() - h.log_signal / (kSigPriorSd * kSigPriorSd);
    (*grad)[d + 1] = 0.5 * noise * W.trace() - (h.log_noise - kNoisePriorMean) / (kNoisePriorSd * kNoisePriorSd);
  }
  return lml + prior;
}

GaussianProcess::Hyper GaussianProcess::Optimize(Hyper h, int iters) const {
  const int d = static_cast<int>(h.log_ls.size());
  const int np = d + 2;
  Eigen::VectorXd theta(np), step = Eigen::VectorXd::Constant(np, 0.2), prev_grad = Eigen::VectorXd::Zero(np);
  auto pack = [&](const Hyper& x) {
    theta.head(d) = x.log_ls;
    theta[d] = x.log_signal;
    theta[d + 1] = x.log_noise;
  };
  auto unpack = [&](const Eigen::VectorXd& t) {
    Hyper x;
    x.log_ls = t.head(d);
    x.log_signal = t[d];
    x.log_noise = t[d + 1];
    return x;
  };
  pack(h);
  Hyper best = h;
  double best_val = -1e300;
  for (int it = 0; it < iters; ++it) {
    Eigen::VectorXd g;
    double val = Objective(unpack(theta), &g);
    if (val > best_val) {
      best_val = val;
      best = unpack(theta);
    }
    if (val <= -1e299) break;
    // iRprop-: per-coordinate steps that grow while the gradient keeps its sign.
    for (int k = 0; k < np; ++k) {
      double prod = g[k] * prev_grad[k];
      if (prod > 0) step[k] = std::min(step[k] * 1.2, 1.0);
      else if (prod < 0) {
        step[k] = std::max(step[k] * 0.5, 1e-4);
        g[k] = 0;
      }
      theta[k] += (g[k] > 0 ? 1 : (g[k] < 0 ? -1 : 0)) * step[k];
    }
    for (int k = 0; k < d; ++k) theta[k] = std::clamp(theta[k], kLogLsMin, kLogLsMax);
    theta[d] = std::clamp(theta[d], kLogSigMin, kLogSigMax);
    theta[d + 1] = std::clamp(theta[d + 1], kLogNoiseMin, kLogNoiseMax);
    prev_grad = g;
  }
  return best;
}

bool GaussianProcess::Fit(const Eigen::MatrixXd& X, const Eigen::VectorXd& y, int optimize_iters) {
  X_ = X;
  y_ = y;
  const int d = static_cast<int>(X.cols());
  if (!have_hyper_ || hyper_.log_ls.size() != d) {
    hyper_ = Default(d);
    have_hyper_ = true;
  }
  if (optimize_iters > 0) {
    Hyper warm = Optimize(hyper_, optimize_iters);
    Hyper fresh = Optimize(Default(d), optimize_iters);
    hyper_ = Objective(warm, nullptr) >= Objective(fresh, nullptr) ? warm : fresh;
  }
  Eigen::MatrixXd K = Kernel(X_, X_, hyper_);
  K.diagonal().array() += std::exp(hyper_.log_noise) + 1e-9;
  llt_.compute(K);
  for (double jitter = 1e-8; llt_.info() != Eigen::Success && jitter < 1; jitter *= 10) {
    K.diagonal().array() += jitter;
    llt_.compute(K);
  }
  fitted_ = llt_.info() == Eigen::Success;
  if (fitted_) {
    mean_ = GlsMean(llt_, y_, &kinv_one_);
    alpha_ = llt_.solve((y_.array() - mean_).matrix());
  }
  return fitted_;
}

void GaussianProcess::Predict(const Eigen::MatrixXd& Xs, Eigen::VectorXd* mean, Eigen::VectorXd* var) const {
  Eigen::MatrixXd Ks = Kernel(Xs, X_, hyper_);  // m x n
  *mean = (Ks * alpha_).array() + mean_;
  Eigen::MatrixXd v = llt_.matrixL().solve(Ks.transpose());  // n x m
  Eigen::VectorXd prior_var = Eigen::VectorXd::Constant(Xs.rows(), std::exp(hyper_.log_signal));
  // Universal kriging: the variance also carries the uncertainty of the estimated mean.
  const Eigen::ArrayXd u = 1.0 - (Ks * kinv_one_).array();
  *var = (prior_var.array() - v.colwise().squaredNorm().transpose().array() + u.square() / kinv_one_.sum())
             .cwiseMax(1e-12)
             .matrix();
}

}  // namespace cprof::tune
