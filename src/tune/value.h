// Value: one parameter's value in a configuration (or one operand of a constraint expression).
//
//   Value v = int64_t{32};
//   FormatValue(v) == "32";   IsActive(Value{}) == false (a conditional parameter that is off)
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace cprof::tune {

// monostate = inactive (a conditional parameter whose condition does not hold).
using Value = std::variant<std::monostate, int64_t, double, std::string>;

inline bool IsActive(const Value& v) { return !std::holds_alternative<std::monostate>(v); }

// Numeric view of a value; nullopt for strings and inactive values.
std::optional<double> AsNumber(const Value& v);

// The text substituted into commands and used in cache keys: integers without a decimal point,
// floats in the shortest form that reads back exactly, strings as they are, "" when inactive.
std::string FormatValue(const Value& v);

// Equality as the expression language sees it: 2 == 2.0, "a" == "a", numbers never equal strings.
bool ValuesEqual(const Value& a, const Value& b);

}  // namespace cprof::tune
