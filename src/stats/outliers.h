// Outlier flags from the median absolute deviation (MAD): a value is an outlier when its
// modified z-score |x - median| / (1.4826 * MAD) exceeds a threshold (3.5, Iglewicz & Hoaglin).
// Robust where mean and standard deviation are not: the outliers themselves do not hide them.
// Outliers are reported, never dropped: the caller decides and says what it did.
//
//   OutlierReport o = FlagMadOutliers(step_ms);
//   for (size_t i : o.indices) ...          // positions in the input, ascending
//
// When more than half the values are equal the MAD is 0; then the mean absolute deviation
// (times 1.2533, its normal consistency constant) takes its place, and when that is 0 too
// nothing is flagged.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

namespace cprof {

struct OutlierReport {
  double median = 0;
  double mad_normal = 0;        // 1.4826 * MAD (scipy.stats.median_abs_deviation(scale="normal"))
  double scale_used = 0;        // mad_normal, or the fallback described above
  double threshold = 3.5;
  std::vector<size_t> indices;  // flagged positions, ascending
  size_t low = 0;               // flagged values below the median
  size_t high = 0;              // flagged values above the median
};

OutlierReport FlagMadOutliers(std::span<const double> values, double threshold = 3.5);

}  // namespace cprof
