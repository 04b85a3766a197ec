// Dixon's Q test for one outlier at an end of a small sample (3 <= n <= 100), at the 99.5%
// level msprof-analyze's slow-rank analysis uses. The ratio changes with n to stay robust to a
// second outlier at either end (Dixon 1951): r10 (n <= 7), r11 (n <= 10), r21 (n <= 13), r22.
// Critical values: our Monte Carlo table (scripts/gen_dixon_table.cc).
//
//   DixonResult d = DixonQTest(wait_ms, DixonSide::kLow);
//   if (d.outlier) use(d.index);   // the smallest value is an outlier
//
// With fewer than 3 values, more than 100, or a zero range, `applicable` is false.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace cprof {

enum class DixonSide { kLow, kHigh };

struct DixonResult {
  bool applicable = false;
  std::string_view ratio;   // "r10", "r11", "r21" or "r22"
  double statistic = 0;
  double critical = 0;      // 99.5% critical value for n
  bool outlier = false;     // statistic > critical
  size_t index = 0;         // position of the extreme value in the input
};

DixonResult DixonQTest(std::span<const double> values, DixonSide side);

}  // namespace cprof
