// Racing and intervals for noisy measurements: the one-sided Welch test (stats/welch_t.h) and the
// Student-t interval of a mean (Boost.Math).
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
// Student-t interval of the mean, cut at zero when no value is on the other side of it (a mean of
// times is never negative); a single value gives a zero-width interval.
MeanInterval MeanConfidenceInterval(std::span<const double> x, double confidence = 0.95);

}  // namespace cprof::tune
