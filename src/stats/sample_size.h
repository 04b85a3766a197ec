// Warnings when a sample is too small for the statement asked of it, so a report says "this p99
// interval rests on 40 values" instead of printing a confident number.
//
//   for (const std::string& w : SampleSizeWarnings(TwoSampleTest::kMannWhitney,
//                                                  SampleStatistic::Percentile(99), 40, 42, 0.05))
//     report.warnings.push_back(w);
//
// The rules, each with its reason:
// - a quantile q needs n * min(q, 1 - q) >= 5, i.e. at least 5 values beyond it (p99: 500,
//   p90: 50, median: 10): below that the bootstrap interval of a tail quantile is set by the
//   few largest values and under-covers;
// - a bootstrap interval of anything needs >= 10 values per side (smaller samples give intervals
//   that are too narrow);
// - Mann-Whitney cannot reach p < alpha when 2 / C(n1 + n2, n1) >= alpha (3 vs 3 runs: 0.1);
// - Welch's t-test needs >= 2 values per side and is not robust to skew below ~5.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "stats/bootstrap.h"

namespace cprof {

enum class TwoSampleTest { kWelchT, kMannWhitney, kBootstrap };

// "t-test", "mann-whitney", "bootstrap" (the CLI's spellings).
std::string_view TwoSampleTestName(TwoSampleTest test);
bool ParseTwoSampleTest(std::string_view name, TwoSampleTest* out);

// The smallest sample for which an interval of `stat` is trustworthy by the rules above.
int64_t MinSamplesForInterval(SampleStatistic stat);

std::vector<std::string> SampleSizeWarnings(TwoSampleTest test, SampleStatistic stat, int64_t n_before,
                                            int64_t n_after, double alpha);

}  // namespace cprof
