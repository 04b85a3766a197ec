// Welch's two-sample t-test (unequal variances), two-sided, with the confidence interval of the
// difference of means. Same statistic, degrees of freedom and p-value as
// `scipy.stats.ttest_ind(x, y, equal_var=False)`; p-values come from Boost.Math's Student t.
//
//   WelchTTestResult r = WelchTTest(after, before);   // r.mean_diff = mean(after) - mean(before)
//   if (r.p_value < 0.05) ...
//
// Needs at least 2 values per sample (else `valid` is false and p_value is NaN). When both
// samples have zero variance the test is degenerate: p is 1 if the means are equal, else 0.
#pragma once

#include <span>

namespace cprof {

struct WelchTTestResult {
  bool valid = false;
  double t = 0;          // (mean(x) - mean(y)) / se
  double df = 0;         // Welch-Satterthwaite degrees of freedom
  double p_value = 1;    // two-sided
  double mean_x = 0;
  double mean_y = 0;
  double mean_diff = 0;  // mean(x) - mean(y)
  double se = 0;         // standard error of mean_diff
  double ci_low = 0;     // confidence interval of mean_diff at the requested level
  double ci_high = 0;
};

WelchTTestResult WelchTTest(std::span<const double> x, std::span<const double> y, double confidence = 0.95);

}  // namespace cprof
