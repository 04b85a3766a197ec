// Summary statistics of one sample of integer values (durations in ns, byte counts): count,
// sum, min, max, mean, sample standard deviation, p50 and p99 (linear interpolation, see
// quantile.h).
//
//   SummaryStats s = Summarize({30, 10, 20});   // s.count == 3, s.mean == 20, s.p50 == 20
//
// An empty sample gives count 0 and zeros everywhere else (not NaN), so callers can print it.
#pragma once

#include <cstdint>
#include <vector>

namespace cprof {

struct SummaryStats {
  int64_t count = 0;
  int64_t sum = 0;
  int64_t min = 0;
  int64_t max = 0;
  double mean = 0;
  double stddev = 0;  // sample standard deviation (n - 1); 0 when count < 2
  double p50 = 0;
  double p99 = 0;
};

// Takes the values by value and sorts them.
SummaryStats Summarize(std::vector<int64_t> values);

}  // namespace cprof
