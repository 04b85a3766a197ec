// Effect sizes of a change between two samples that need no distribution assumption:
// the Hodges-Lehmann shift (a robust "how much", in the data's unit) and Cliff's delta
// (a "how often", from -1 to 1).
//
//   double shift = HodgesLehmannShift(before_ms, after_ms);  // median of all after_j - before_i
//   double d = CliffsDelta(before_ms, after_ms);             // P(after > before) - P(after < before)
//
// Both are O((n + m) log(n + m)) time and O(n + m) memory: the shift is found by searching the
// implicit n x m matrix of differences, never materializing it. NaN for an empty sample.
#pragma once

#include <span>
#include <string_view>

namespace cprof {

double HodgesLehmannShift(std::span<const double> before, std::span<const double> after);

double CliffsDelta(std::span<const double> before, std::span<const double> after);

// Vargha & Delaney's (2000) thresholds on |delta|: "negligible" (< 0.147), "small" (< 0.33),
// "medium" (< 0.474), "large".
std::string_view CliffsDeltaMagnitude(double delta);

}  // namespace cprof
