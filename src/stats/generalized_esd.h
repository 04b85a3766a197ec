// Rosner's generalized extreme Studentized deviate (ESD) test: up to `max_outliers` outliers at
// one end of an approximately normal sample, without the masking that repeated Grubbs tests
// suffer when several outliers pull the mean and standard deviation. With max_outliers = 1 it
// is Grubbs' test. One-sided at level alpha (0.005 matches Dixon's 99.5%).
//
//   EsdResult e = GeneralizedEsdTest(wait_ms, /*max_outliers=*/6, /*alpha=*/0.005, EsdSide::kLow);
//   for (size_t i : e.indices) ...   // the outliers, most extreme first
//
// Needs n >= 3; `applicable` is false otherwise or when the values do not vary.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace cprof {

enum class EsdSide { kLow, kHigh };

struct EsdStep {
  size_t index;     // position in the input of the value removed at this step
  double r;         // its Studentized deviation
  double lambda;    // the critical value at this step
};

struct EsdResult {
  bool applicable = false;
  std::vector<EsdStep> steps;   // one per candidate, most extreme first
  std::vector<size_t> indices;  // the outliers: the first k candidates, k = largest i with r > lambda
};

EsdResult GeneralizedEsdTest(std::span<const double> values, size_t max_outliers, double alpha, EsdSide side);

}  // namespace cprof
