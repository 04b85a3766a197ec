// Parameter: coordinates <-> values, the unit encoding models use, uniform sampling, validation.
#include "tune/parameter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <string>
#include <string_view>

#include "tune/rng.h"

namespace cprof::tune {

const char* ParamTypeName(ParamType t) {
  switch (t) {
    case ParamType::kInt: return "int";
    case ParamType::kFloat: return "float";
    case ParamType::kCategorical: return "categorical";
    case ParamType::kOrdinal: return "ordinal";
  }
  return "?";
}

size_t Parameter::cardinality() const {
  switch (type) {
    case ParamType::kCategorical:
    case ParamType::kOrdinal: return values.size();
    case ParamType::kInt:
    case ParamType::kFloat:
      if (step <= 0) return 0;
      return static_cast<size_t>(std::floor((high - low) / step + 1e-9)) + 1;
  }
  return 0;
}

namespace {
// 15 significant digits: the value the space file means. low + idx * step in binary is off in the
// last bits (0.1 + 2 * 0.1 = 0.30000000000000004, and 0.7000000000000001 above a `high: 0.7`),
// which the command would receive as text; the change is below 1e-15 relative.
// Ints are exact as they are (below 2^53): 15 digits made 1000000000000005 into 1e15, below low.
double Short(double v) { return std::strtod(fmt::format("{:.15g}", v).c_str(), nullptr); }
// A grid point within a billionth of a step of zero is 0: -0.3 + 3 * 0.1 is 5.55e-17.
double GridValue(const Parameter& p, double idx) {
  double v = p.low + idx * p.step;
  if (p.low < 0 && std::fabs(v) < p.step * 1e-9) v = 0;
  return std::min(p.type == ParamType::kInt ? v : Short(v), p.high);
}
// Where `x` lies between a and b as a share of the way, and back, without forming b - a or b / a,
// which overflow for a range such as +-1.7e308 or 1e-200..1e200.
double Between(double a, double b, double t) { return a * (1 - t) + b * t; }
double ShareOf(double a, double b, double x) { return (x / 2 - a / 2) / (b / 2 - a / 2); }
double LogShareOf(double a, double b, double x) { return (std::log(x) - std::log(a)) / (std::log(b) - std::log(a)); }
double LogBetween(double a, double b, double t) { return std::exp(Between(std::log(a), std::log(b), t)); }

// Whether 15 significant digits end in a run of 0s or 9s before the last one ("0.999999999999999",
// "7.00000000000001"): a shorter decimal lies within a few ulps.
bool EndsNearShorter(const std::string& text) {
  std::string digits;
  for (char c : text) {
    if (c == 'e') break;
    if (c >= '0' && c <= '9' && !(digits.empty() && c == '0')) digits += c;
  }
  if (digits.size() < 14) return false;
  const std::string_view run = std::string_view(digits).substr(digits.size() - 4, 3);
  return run == "000" || run == "999";
}

// A continuous parameter's value at a unit coordinate: 15 significant digits, or the decimal of
// fewest digits whose own coordinate is within a few ulps of it. So a value read from the space
// file, whose coordinate is computed from it, comes back as written: exp(log(x)) is off in the
// last bits, more than 15 digits absorb (a log-scale default of 1 in 0.001..10 came back as
// 0.999999999999999). Key() formats every candidate of every pool, so the search runs only where
// the 15 digits show it may succeed (3 continuous parameters, 150 evaluations: 2.65 s against
// 2.51 s with 15 digits alone; 9.0 s searching for every value).
double ShortestValueAt(const Parameter& p, double coord) {
  constexpr double kTolerance = 8 * std::numeric_limits<double>::epsilon();
  double exact = p.log ? LogBetween(p.low, p.high, coord) : Between(p.low, p.high, coord);
  // On a linear range the blend of its ends is off by their ulps, not the value's: 0 in -3..7 came
  // back as 4.44e-16, 0.001 in -1..1 as 0.00099999999999989. To 15 digits of the larger end.
  if (!p.log) {
    const double q =
        std::pow(10.0, std::floor(std::log10(std::max(std::fabs(p.low), std::fabs(p.high)))) - 15);
    if (q > 0 && std::isfinite(exact / q)) exact = std::round(exact / q) * q + 0.0;  // + 0.0: not -0
  }
  const std::string text = fmt::format("{:.15g}", exact);
  if (EndsNearShorter(text))
    for (int digits = 1; digits <= 13; ++digits) {
      const double v = std::strtod(fmt::format("{:.{}g}", exact, digits).c_str(), nullptr);
      if (!(v >= p.low && v <= p.high)) continue;
      const double back = p.log ? LogShareOf(p.low, p.high, v) : ShareOf(p.low, p.high, v);
      if (std::fabs(back - coord) <= kTolerance) return v;
    }
  return std::clamp(std::strtod(text.c_str(), nullptr), p.low, p.high);
}
}  // namespace

Value Parameter::ValueAt(double coord) const {
  if (std::isnan(coord)) return Value{};
  switch (type) {
    case ParamType::kCategorical:
    case ParamType::kOrdinal: {
      size_t i = std::min(values.size() - 1, static_cast<size_t>(std::max(0.0, std::round(coord))));
      return values[i];
    }
    case ParamType::kInt: return Value{static_cast<int64_t>(std::llround(GridValue(*this, std::round(coord))))};
    case ParamType::kFloat: {
      if (!continuous()) return Value{GridValue(*this, std::round(coord))};
      return Value{ShortestValueAt(*this, std::clamp(coord, 0.0, 1.0))};
    }
  }
  return Value{};
}

std::optional<double> Parameter::CoordOf(const Value& v) const {
  if (!IsActive(v)) return std::nullopt;
  if (type == ParamType::kCategorical || type == ParamType::kOrdinal) {
    for (size_t i = 0; i < values.size(); ++i)
      if (ValuesEqual(values[i], v)) return static_cast<double>(i);
    return std::nullopt;
  }
  std::optional<double> x = AsNumber(v);
  if (!x) return std::nullopt;
  double tol = 1e-9 * std::max(1.0, std::fabs(high - low));
  if (*x < low - tol || *x > high + tol) return std::nullopt;
  if (continuous()) {
    if (high == low) return 0.0;
    if (log) return std::clamp(LogShareOf(low, high, *x), 0.0, 1.0);
    return std::clamp(ShareOf(low, high, *x), 0.0, 1.0);
  }
  double idx = std::round((*x - low) / step);
  if (std::fabs(GridValue(*this, idx) - *x) > tol) return std::nullopt;
  return idx;
}

double Parameter::Encode(double coord) const {
  if (std::isnan(coord)) return 0.0;
  if (type == ParamType::kCategorical || type == ParamType::kOrdinal) {
    return values.size() <= 1 ? 0.0 : coord / static_cast<double>(values.size() - 1);
  }
  if (continuous()) return coord;
  if (high == low) return 0.0;
  double v = GridValue(*this, coord);
  return log ? LogShareOf(low, high, v) : ShareOf(low, high, v);
}

double Parameter::Decode(double unit) const {
  unit = std::clamp(unit, 0.0, 1.0);
  if (type == ParamType::kCategorical || type == ParamType::kOrdinal) {
    return values.size() <= 1 ? 0.0 : std::round(unit * static_cast<double>(values.size() - 1));
  }
  if (continuous()) return unit;
  double v = log ? LogBetween(low, high, unit) : Between(low, high, unit);
  double idx = std::round((v - low) / step);
  return std::clamp(idx, 0.0, static_cast<double>(cardinality() - 1));
}

double Parameter::Sample(Rng& rng) const {
  if (continuous()) return rng.Uniform();
  if (log && (type == ParamType::kInt || type == ParamType::kFloat)) return Decode(rng.Uniform());
  return static_cast<double>(rng.Index(cardinality()));
}

double Parameter::SampleProbability(size_t index) const {
  const size_t n = cardinality();
  if (n == 0 || index >= n) return 0;
  if (!(log && (type == ParamType::kInt || type == ParamType::kFloat))) return 1.0 / static_cast<double>(n);
  // Sample() decodes a uniform unit: index k takes the units whose value rounds to it.
  auto unit_at = [&](double v) { return v <= low ? 0.0 : v >= high ? 1.0 : LogShareOf(low, high, v); };
  const double k = static_cast<double>(index);
  const double from = index == 0 ? 0.0 : unit_at(low + (k - 0.5) * step);
  const double to = index + 1 == n ? 1.0 : unit_at(low + (k + 0.5) * step);
  return std::max(0.0, to - from);
}

Status Parameter::Check() const {
  auto bad = [&](const std::string& why) { return InvalidInput("parameter '{}': {}", name, why); };
  if (name.empty()) return InvalidInput("a parameter has no name");
  switch (type) {
    case ParamType::kCategorical:
    case ParamType::kOrdinal:
      if (values.empty()) return bad("no values");
      {
        // Sorted, so that equal values are neighbours (pairwise, 40,000 values took 6 s).
        // Numbers first, by value (1 and 1.0 are the same value), then text.
        std::vector<size_t> order(values.size());
        std::iota(order.begin(), order.end(), size_t{0});
        auto less = [&](size_t i, size_t j) {
          const std::optional<double> a = AsNumber(values[i]), b = AsNumber(values[j]);
          if (a && b) return *a < *b;
          if (a || b) return a.has_value();
          return FormatValue(values[i]) < FormatValue(values[j]);
        };
        std::sort(order.begin(), order.end(), less);
        for (size_t k = 1; k < order.size(); ++k)
          if (ValuesEqual(values[order[k - 1]], values[order[k]]))
            return bad(fmt::format("value {} listed twice", FormatValue(values[std::min(order[k - 1], order[k])])));
      }
      break;
    case ParamType::kInt:
      if (step < 1 || std::trunc(step) != step) return bad("step must be a positive integer");
      [[fallthrough]];
    case ParamType::kFloat:
      if (!std::isfinite(low) || !std::isfinite(high) || high < low) return bad("needs finite low <= high");
      if (log && low <= 0) return bad("log scale needs low > 0");
      if (type == ParamType::kInt && (std::trunc(low) != low || std::trunc(high) != high))
        return bad("int bounds must be integers");
      // Values are indexed by doubles, exact up to 2^53: beyond, neighbouring integers collapse
      // (a high of 1e20 read as one value, a range of 2^63 overflowed the count of values).
      if (type == ParamType::kInt && std::max(std::fabs(low), std::fabs(high)) > kMaxExactInt)
        return bad(fmt::format("int bounds must lie within +-{} (2^53)", static_cast<int64_t>(kMaxExactInt)));
      if (step > 0 && (high - low) / step > kMaxExactInt) return bad("more than 2^53 values between low and high");
      if (type == ParamType::kFloat && step < 0) return bad("step must be >= 0");
      break;
  }
  if (default_value && !CoordOf(*default_value)) {
    const bool text = std::holds_alternative<std::string>(*default_value);
    const std::string shown = FormatValue(*default_value);
    if (text && (type == ParamType::kInt || type == ParamType::kFloat))
      return bad(fmt::format("default \"{}\" is text, not a number (written in quotes?)", shown));
    // `values: ["1", "2"]` with `default: 1`: the same digits, one side text and one a number.
    for (const Value& v : values)
      if (FormatValue(v) == shown)
        return bad(fmt::format("default {} is {} while the value {} is {}: quote both or neither", shown,
                               text ? "text" : "a number", shown,
                               std::holds_alternative<std::string>(v) ? "text" : "a number"));
    if (!text && (type == ParamType::kInt || type == ParamType::kFloat)) {  // say which rule it breaks
      const double d = std::holds_alternative<double>(*default_value) ? std::get<double>(*default_value)
                                                                      : static_cast<double>(std::get<int64_t>(*default_value));
      if (d < low || d > high)
        return bad(fmt::format("default {} is outside its range {}..{}", shown, FormatValue(Value(low)),
                               FormatValue(Value(high))));
      if (step > 0)
        return bad(fmt::format("default {} is not low + a multiple of step {}", shown, FormatValue(Value(step))));
    }
    return bad(fmt::format("default {} is not one of its values", shown));
  }
  return Status::Ok();
}

}  // namespace cprof::tune
