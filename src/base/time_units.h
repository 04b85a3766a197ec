// Exact time parsing and formatting: everything is int64 nanoseconds, never a double on the way in.
//
//   ParseDecimalMicrosToNs("1736408883688177.930") == 1736408883688177930
//   ParseDuration("200ms") == 200'000'000
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace cprof {

using TimeNs = int64_t;

inline constexpr TimeNs kNsPerUs = 1000;
inline constexpr TimeNs kNsPerMs = 1000 * 1000;
inline constexpr TimeNs kNsPerS = 1000 * 1000 * 1000;

// Parses a decimal number of microseconds ("12", "12.5", "-3.25", "1e3" is rejected) into ns,
// rounding half away from zero past the third fractional digit. Returns nullopt on anything
// that is not a plain decimal or that overflows int64 ns.
std::optional<TimeNs> ParseDecimalMicrosToNs(std::string_view text);

// Same for a decimal string scaled by 10^scale_exp ns per unit (3 for us, 0 for ns, 6 for ms).
std::optional<TimeNs> ParseDecimalScaledToNs(std::string_view text, int scale_exp);

// Converts a double number of microseconds to ns, rounding to nearest. For JSON numbers whose
// text was not kept; nullopt for NaN, infinities and values outside int64 ns.
std::optional<TimeNs> MicrosDoubleToNs(double us);

// Parses a command-line duration that must carry a unit: ns, us, ms, s, m, h ("300s", "1.5ms"),
// or several, from larger units to smaller ("1h30m", "2m30s"). Every command's durations go
// through this one parser.
StatusOr<TimeNs> ParseDuration(std::string_view text);

// Parses "A:B" (each a duration, either may be empty for open) relative to a trace's start.
struct TimeRange {
  std::optional<TimeNs> start;
  std::optional<TimeNs> end;
};
StatusOr<TimeRange> ParseTimeRange(std::string_view text);

// Human formatting for the terminal: "1.23 ms", "456 us", "2.5 s".
std::string FormatDuration(TimeNs ns);

// A wait to the whole second, for estimates: "0 s", "42 s", "3 min 12 s", "2 h 05 min".
std::string FormatRemaining(double seconds);

}  // namespace cprof
