// Racing and intervals for noisy measurements (Boost.Math's Student t).
//
//   if (ClearlyWorse(candidate_times, incumbent_times)) stop_repeating();
//   MeanInterval ci = MeanConfidenceInterval(times);   // 95%
#pragma once

#include <span>

namespace cprof::tune {

// One-sided Welch t-test: is the mean of `x` larger (worse, minimizing) than that of `best` at
// significance `alpha`? Needs two values in each; false otherwise.
bool ClearlyWorse(std::span<const double> x, std::span<const double> best, double alpha = 0.05);

struct MeanInterval {
  double mean = 0, low = 0, high = 0;
};
// Student-t interval of the mean; a single value gives a zero-width interval.
MeanInterval MeanConfidenceInterval(std::span<const double> x, double confidence = 0.95);

}  // namespace cprof::tune
