// Exact decimal-to-nanosecond parsing and duration formatting.
#include "base/time_units.h"

#include <algorithm>
#include <cmath>
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

StatusOr<TimeNs> ParseDuration(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    int exp;
  };
  // Longest suffixes first so "ms" is not read as "s".
  static constexpr Unit kUnits[] = {{"ns", 0}, {"us", 3}, {"ms", 6}, {"s", 9}};
  for (const Unit& u : kUnits) {
    if (text.size() > u.suffix.size() && text.ends_with(u.suffix)) {
      auto ns = ParseDecimalScaledToNs(text.substr(0, text.size() - u.suffix.size()), u.exp);
      if (!ns) break;
      return *ns;
    }
  }
  for (auto [suffix, mult] : {std::pair<std::string_view, int64_t>{"m", 60}, {"h", 3600}}) {
    if (text.size() > 1 && text.ends_with(suffix)) {
      auto s = ParseDecimalScaledToNs(text.substr(0, text.size() - 1), 9);
      if (!s) break;
      return *s * mult;
    }
  }
  if (ParseDecimalScaledToNs(text, 9)) {  // a bare number: which unit was meant is a guess
    return InvalidInput("'{0}' is not a duration: give a unit, e.g. {0}s or {0}ms (ns, us, ms, s, m, h)", text);
  }
  return InvalidInput("'{}' is not a duration: write a number with a unit (ns, us, ms, s, m, h), "
                      "e.g. 300s or 200ms",
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
