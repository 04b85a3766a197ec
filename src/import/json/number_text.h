// Text checks the JSON event parser makes on raw number and value text, before or instead of
// simdjson: trailing-space trimming, integer / float / JSON-number syntax, a fast exact path for
// decimal microseconds, and bracket nesting depth.
//
//   int64_t ns;
//   if (FastMicrosToNs("1736408883688177.930", &ns)) ...  // ns == 1736408883688177930
//   IsJsonNumberSyntax("1e5") == true;  IsJsonNumberSyntax("01") == false
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

namespace cprof::json {

inline std::string_view Trim(std::string_view t) {
  while (!t.empty() && (t.back() == ' ' || t.back() == '\n' || t.back() == '\r' || t.back() == '\t')) {
    t.remove_suffix(1);
  }
  return t;
}

inline bool LooksFloat(std::string_view t) {
  for (char c : t) {
    if (c == '.' || c == 'e' || c == 'E') return true;
  }
  return false;
}

// Plain non-negative decimal microseconds that fit int64 ns, in int64 arithmetic: the same result
// as ParseDecimalMicrosToNs (half away from zero on the fourth fractional digit), faster; false
// sends anything else to it.
inline bool FastMicrosToNs(std::string_view t, int64_t* ns) {
  const size_t n = t.size();
  size_t i = 0;
  uint64_t whole = 0;
  while (i < n && t[i] >= '0' && t[i] <= '9') whole = whole * 10 + static_cast<uint64_t>(t[i++] - '0');
  if (i == 0 || i > 16 || whole > 9223372036854774ull) return false;
  uint64_t frac = 0;
  int kept = 0;
  bool round_up = false;
  if (i < n && t[i] == '.') {
    const size_t first = ++i;
    for (; i < n && t[i] >= '0' && t[i] <= '9'; ++i) {
      if (kept < 3) {
        frac = frac * 10 + static_cast<uint64_t>(t[i] - '0');
        ++kept;
      } else if (i == first + 3) {
        round_up = t[i] >= '5';
      }
    }
    if (i == first) return false;
  }
  if (i != n) return false;
  for (; kept < 3; ++kept) frac *= 10;
  *ns = static_cast<int64_t>(whole * 1000 + frac + (round_up ? 1 : 0));
  return true;
}

inline bool IsIntegerText(std::string_view t) {
  size_t i = (!t.empty() && t[0] == '-') ? 1 : 0;
  if (i == t.size()) return false;
  for (; i < t.size(); ++i) {
    if (t[i] < '0' || t[i] > '9') return false;
  }
  return true;
}

// The deepest bracket nesting of JSON text, brackets inside strings skipped.
int NestingDepth(std::string_view t);

// True if `t` is a number by JSON's grammar: -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?
bool IsJsonNumberSyntax(std::string_view t);

}  // namespace cprof::json
