// Summary statistics of one sample.
#include "stats/summary_stats.h"

#include <algorithm>
#include <cmath>
#include <span>

#include "stats/quantile.h"

namespace cprof {

SummaryStats Summarize(std::vector<int64_t> values) {
  SummaryStats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  s.count = static_cast<int64_t>(values.size());
  s.min = values.front();
  s.max = values.back();
  for (int64_t v : values) s.sum += v;
  s.mean = static_cast<double>(s.sum) / static_cast<double>(s.count);
  if (s.count > 1) {
    double m2 = 0;
    for (int64_t v : values) {
      double d = static_cast<double>(v) - s.mean;
      m2 += d * d;
    }
    s.stddev = std::sqrt(m2 / static_cast<double>(s.count - 1));
  }
  std::span<const int64_t> sorted(values);
  s.p50 = QuantileSorted(sorted, 0.50);
  s.p99 = QuantileSorted(sorted, 0.99);
  return s;
}

}  // namespace cprof
