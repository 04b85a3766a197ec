// Value helpers: numeric view, canonical text, equality.
#include "tune/value.h"

#include <charconv>
#include <cmath>

namespace cprof::tune {

std::optional<double> AsNumber(const Value& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return static_cast<double>(*i);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

std::string FormatValue(const Value& v) {
  if (const auto* i = std::get_if<int64_t>(&v)) return std::to_string(*i);
  if (const auto* d = std::get_if<double>(&v)) {
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof(buf), *d);  // shortest round-trip form
    return std::string(buf, res.ptr);
  }
  if (const auto* s = std::get_if<std::string>(&v)) return *s;
  return "";
}

bool ValuesEqual(const Value& a, const Value& b) {
  auto na = AsNumber(a), nb = AsNumber(b);
  if (na && nb) return *na == *nb;
  if (na || nb) return false;
  if (a.index() != b.index()) return false;
  if (const auto* s = std::get_if<std::string>(&a)) return *s == std::get<std::string>(b);
  return true;  // both inactive
}

}  // namespace cprof::tune
