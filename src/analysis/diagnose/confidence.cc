// The confidence formula (confidence.h).
#include "analysis/diagnose/confidence.h"

#include <algorithm>
#include <cmath>

namespace cprof {

namespace {
double Clamp01(double x) { return std::isnan(x) ? 0.0 : std::clamp(x, 0.0, 1.0); }
}  // namespace

double ComputeConfidence(const ConfidenceTerms& t) {
  const double m = Clamp01(t.magnitude);
  if (m == 0) return 0;
  return std::pow(m, 0.4) * std::pow(Clamp01(t.support), 0.2) * std::pow(Clamp01(t.consistency), 0.2) *
         std::pow(Clamp01(t.specificity), 0.2);
}

double MagnitudeOverThreshold(double observed, double threshold) {
  if (!(observed > threshold) || observed <= 0) return 0;
  return Clamp01(1.0 - threshold / observed);
}

double SupportFromCount(int64_t n) {
  if (n <= 0) return 0;
  return static_cast<double>(n) / (static_cast<double>(n) + 3.0);
}

}  // namespace cprof
