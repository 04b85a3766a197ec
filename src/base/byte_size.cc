// Sizes as users write them on the command line.
#include "base/byte_size.h"

#include <cctype>
#include <charconv>
#include <cmath>

#include <fmt/format.h>

namespace cprof {

StatusOr<uint64_t> ParseByteSize(std::string_view text) {
  auto bad = [&] {
    return InvalidInput("'{}' is not a size: use a number of bytes with an optional K, M, G or T suffix "
                        "(binary: 4G = 4GB = 4GiB), e.g. 512M",
                        text);
  };
  std::string_view t = text;
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
  while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
  if (t.empty()) return bad();
  if (t.size() >= 2 && (t.back() == 'B' || t.back() == 'b') && std::isalpha(static_cast<unsigned char>(t[t.size() - 2]))) {
    t.remove_suffix(1);  // "4GB", "512MiB" minus the B
    if (!t.empty() && (t.back() == 'i' || t.back() == 'I')) t.remove_suffix(1);
  }
  int shift = 0;
  switch (std::tolower(static_cast<unsigned char>(t.back()))) {
    case 'k': shift = 10; break;
    case 'm': shift = 20; break;
    case 'g': shift = 30; break;
    case 't': shift = 40; break;
    default: break;
  }
  if (shift != 0) t.remove_suffix(1);
  if (t.empty()) return bad();
  double value = 0;
  auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), value);
  if (ec != std::errc() || end != t.data() + t.size() || !std::isfinite(value) || value < 0) return bad();
  const double bytes = std::ldexp(value, shift);
  if (bytes >= 1.8e19) return bad();
  return static_cast<uint64_t>(bytes);
}

std::string FormatByteSize(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  int unit = 0;
  double v = static_cast<double>(bytes);
  while (v >= 1024 && unit < 6) {
    v /= 1024;
    ++unit;
  }
  if (unit == 0 || v >= 10 || v == std::floor(v)) return fmt::format("{:.0f} {}", std::floor(v), kUnits[unit]);
  return fmt::format("{:.1f} {}", std::floor(v * 10) / 10, kUnits[unit]);
}

}  // namespace cprof
