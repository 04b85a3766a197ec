// Parameter: one knob of a search space — its type, its values, its default and its condition.
//
// Samplers see a configuration as coordinates, one per parameter (see search_space.h):
//   discrete parameters (int, ordinal, categorical): the index of the value, 0..cardinality-1;
//   continuous floats: a unit coordinate in [0, 1] (log-scaled when `log`);
//   NaN: the parameter is inactive (its condition does not hold).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "tune/expression.h"
#include "tune/value.h"

namespace cprof::tune {

// 2^53: doubles hold every integer up to it. Int bounds, int values and the number of values of a
// range stay within it (coordinates are doubles).
inline constexpr double kMaxExactInt = 9007199254740992.0;

enum class ParamType {
  kInt,          // integers low..high by step (log: values spaced geometrically for sampling)
  kFloat,        // reals in [low, high]; continuous unless step > 0
  kCategorical,  // unordered values
  kOrdinal,      // ordered values (a list whose order means something: sizes, levels)
};

const char* ParamTypeName(ParamType t);

struct Parameter {
  std::string name;
  ParamType type = ParamType::kOrdinal;
  double low = 0, high = 0;  // kInt, kFloat
  double step = 0;           // kInt: >= 1; kFloat: 0 = continuous, else a grid low, low+step, ...
  bool log = false;          // kInt, kFloat: sample and model on a log scale (low > 0)
  std::vector<Value> values;            // kCategorical, kOrdinal
  std::optional<Value> default_value;   // used for the baseline trial; must be a legal value
  std::optional<Expression> condition;  // active only when this holds; reads earlier parameters only

  bool continuous() const { return type == ParamType::kFloat && step <= 0; }
  // Number of values for discrete parameters; 0 for continuous ones.
  size_t cardinality() const;
  // Whether samplers may treat index distance as meaningful (everything but categorical).
  bool ordered() const { return type != ParamType::kCategorical; }

  // Coordinate -> value (index for discrete, unit coordinate for continuous).
  Value ValueAt(double coord) const;
  // Value -> coordinate; nullopt when the value is not legal for this parameter.
  std::optional<double> CoordOf(const Value& v) const;

  // Coordinate -> [0, 1] for models: index / (k-1) for ordinal, (log) value scale for int/float.
  // Categorical parameters are one-hot encoded by models instead; this returns index / (k-1).
  double Encode(double coord) const;
  // The inverse of Encode, snapped to the nearest legal coordinate.
  double Decode(double unit) const;
  // A uniformly random coordinate (log-uniform in value for log parameters).
  double Sample(class Rng& rng) const;
  // The chance that Sample() draws the discrete coordinate `index` (1 / cardinality but on a log
  // scale, where small values are likelier).
  double SampleProbability(size_t index) const;
  // Validates the definition (bounds, steps, values, default); the message names the parameter.
  Status Check() const;
};

}  // namespace cprof::tune
