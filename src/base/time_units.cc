// Exact decimal-to-nanosecond parsing and duration formatting.
#include "base/time_units.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

namespace cprof {

std::optional<TimeNs> ParseDecimalScaledToNs(std::string_view text, int scale_exp) {
  size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) {
    negative = text[i] == '-';
    ++i;
  }
  // Accumulate integer digits and up to scale_exp fractional digits as one integer, then round
  // on the next digit. __int128 keeps overflow checks simple.
  __int128 acc = 0;
  bool any_digit = false;
  const __int128 limit = static_cast<__int128>(std::numeric_limits<int64_t>::max()) + 1;
  for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
    acc = acc * 10 + (text[i] - '0');
    any_digit = true;
    if (acc > limit) return std::nullopt;
  }
  int frac_digits = 0;
  bool round_up = false;
  if (i < text.size() && text[i] == '.') {
    ++i;
    for (; i < text.size() && text[i] >= '0' && text[i] <= '9'; ++i) {
      any_digit = true;
      if (frac_digits < scale_exp) {
        acc = acc * 10 + (text[i] - '0');
        ++frac_digits;
      } else if (frac_digits == scale_exp) {
        round_up = text[i] >= '5';
        ++frac_digits;  // only the first dropped digit decides (half away from zero)
      }
    }
  }
  if (!any_digit || i != text.size()) return std::nullopt;
  for (int k = std::min(frac_digits, scale_exp); k < scale_exp; ++k) acc *= 10;
  if (round_up) acc += 1;
  if (negative) acc = -acc;
  if (acc > std::numeric_limits<int64_t>::max() || acc < std::numeric_limits<int64_t>::min()) {
    return std::nullopt;
  }
  return static_cast<TimeNs>(acc);
}

std::optional<TimeNs> ParseDecimalMicrosToNs(std::string_view text) {
  return ParseDecimalScaledToNs(text, 3);
}

std::optional<TimeNs> MicrosDoubleToNs(double us) {
  if (!std::isfinite(us)) return std::nullopt;
  double ns = std::round(us * 1000.0);
  if (ns >= 9.2e18 || ns <= -9.2e18) return std::nullopt;
  return static_cast<TimeNs>(ns);
}

namespace {

struct DurationUnit {
  std::string_view suffix;
  int exp;        // ns per unit = mult x 10^exp
  int64_t mult;
};
// Largest first: a compound duration ("1h30m") goes from larger units to smaller.
constexpr DurationUnit kDurationUnits[] = {{"h", 9, 3600}, {"m", 9, 60}, {"s", 9, 1}, {"ms", 6, 1}, {"us", 3, 1},
                                           {"ns", 0, 1}};

// One number with its unit ("1.5h", "200ms"); nullopt when `text` is not one, or overflows (then
// *overflow is set).
std::optional<TimeNs> ParseOneDuration(std::string_view text, size_t* unit, bool* overflow) {
  const size_t digits = text.find_first_not_of("+-0123456789.");
  if (digits == std::string_view::npos || digits == 0) return std::nullopt;
  const std::string_view suffix = text.substr(digits);
  for (size_t u = 0; u < std::size(kDurationUnits); ++u) {
    if (suffix != kDurationUnits[u].suffix) continue;
    const std::string_view number = text.substr(0, digits);
    std::optional<TimeNs> ns = ParseDecimalScaledToNs(number, kDurationUnits[u].exp);
    if (!ns || std::llabs(*ns) > std::numeric_limits<int64_t>::max() / kDurationUnits[u].mult) {
      // A well-formed number (digits, one point at most) fails only by holding more nanoseconds
      // than an int64 does.
      *overflow = ns.has_value() || (number.find_first_of("+-") == std::string_view::npos &&
                                     std::count(number.begin(), number.end(), '.') <= 1 &&
                                     number.find_first_of("0123456789") != std::string_view::npos);
      return std::nullopt;
    }
    *unit = u;
    return *ns * kDurationUnits[u].mult;
  }
  return std::nullopt;
}

}  // namespace

StatusOr<TimeNs> ParseDuration(std::string_view text) {
  // Parts, each a number and its unit, units from larger to smaller: "90s", "1h30m", "2m30.5s".
  // A sign goes only in front of the whole.
  TimeNs total = 0;
  size_t last_unit = 0;
  bool first = true, negative = false;
  std::string_view rest = text;
  if (!rest.empty() && (rest[0] == '-' || rest[0] == '+')) {
    negative = rest[0] == '-';
    rest.remove_prefix(1);
  }
  while (!rest.empty()) {
    // A part ends where the letters of its unit end.
    size_t end = rest.find_first_not_of("0123456789.");
    if (end != std::string_view::npos) end = rest.find_first_of("0123456789.", end);
    const std::string_view part = rest.substr(0, end);
    size_t unit = 0;
    bool overflow = false;
    std::optional<TimeNs> ns = ParseOneDuration(part, &unit, &overflow);
    if (overflow) return InvalidInput("'{}' is not a duration: too long (at most 292 years)", text);
    if (!ns || part[0] == '+' || part[0] == '-') {
      total = -1;
      break;
    }
    if (!first && unit <= last_unit)
      return InvalidInput("'{}' is not a duration: give its parts from larger units to smaller, each once, "
                          "e.g. 1h30m or 2m30s",
                          text);
    if (*ns > std::numeric_limits<int64_t>::max() - total)
      return InvalidInput("'{}' is not a duration: too long (at most 292 years)", text);
    total += *ns;
    last_unit = unit;
    first = false;
    rest.remove_prefix(part.size());
  }
  if (!first && total >= 0) return negative ? -total : total;
  if (ParseDecimalScaledToNs(text, 9)) {  // a bare number: which unit was meant is a guess
    return InvalidInput("'{0}' is not a duration: give a unit, e.g. {0}s or {0}ms (ns, us, ms, s, m, h)", text);
  }
  return InvalidInput("'{}' is not a duration: write a number with a unit (ns, us, ms, s, m, h), "
                      "e.g. 300s, 200ms or 1h30m",
                      text);
}

StatusOr<TimeRange> ParseTimeRange(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return InvalidInput("'{}' is not a time range: write START:END, e.g. 2s:5s or 1s:", text);
  }
  TimeRange range;
  std::string_view a = text.substr(0, colon), b = text.substr(colon + 1);
  if (!a.empty()) {
    ASSIGN_OR_RETURN(range.start, ParseDuration(a));
  }
  if (!b.empty()) {
    ASSIGN_OR_RETURN(range.end, ParseDuration(b));
  }
  if (range.start && range.end && *range.end < *range.start) {
    return InvalidInput("time range '{}' ends before it starts", text);
  }
  return range;
}

std::string FormatDuration(TimeNs ns) {
  double v = static_cast<double>(ns);
  double a = std::fabs(v);
  if (a >= 1e9) return fmt::format("{:.3f} s", v / 1e9);
  if (a >= 1e6) return fmt::format("{:.3f} ms", v / 1e6);
  if (a >= 1e3) return fmt::format("{:.3f} us", v / 1e3);
  return fmt::format("{} ns", ns);
}

std::string FormatRemaining(double seconds) {
  const long long s = std::llround(std::max(seconds, 0.0));
  if (s < 60) return fmt::format("{} s", s);
  if (s < 3600) return fmt::format("{} min {} s", s / 60, s % 60);
  return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

}  // namespace cprof
