// MAD-based outlier flags.
#include "stats/outliers.h"

#include <cmath>

#include "stats/quantile.h"

namespace cprof {

OutlierReport FlagMadOutliers(std::span<const double> values, double threshold) {
  OutlierReport r;
  r.threshold = threshold;
  if (values.empty()) return r;
  r.median = Quantile(std::vector<double>(values.begin(), values.end()), 0.5);
  std::vector<double> dev;
  dev.reserve(values.size());
  double mean_abs = 0;
  for (double v : values) {
    dev.push_back(std::fabs(v - r.median));
    mean_abs += dev.back();
  }
  mean_abs /= static_cast<double>(values.size());
  // 1 / Phi^-1(3/4), scipy's "normal" scale.
  r.mad_normal = Quantile(dev, 0.5) / 0.67448975019608171;
  r.scale_used = r.mad_normal > 0 ? r.mad_normal : 1.2533141373155001 * mean_abs;
  if (r.scale_used <= 0) return r;
  for (size_t i = 0; i < values.size(); ++i) {
    if (std::fabs(values[i] - r.median) / r.scale_used > threshold) {
      r.indices.push_back(i);
      (values[i] < r.median ? r.low : r.high)++;
    }
  }
  return r;
}

}  // namespace cprof
