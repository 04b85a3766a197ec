// A small typed value for args and metadata: int, uint, double, interned string or bool.
#pragma once

#include <cstdint>

#include "base/string_pool.h"

namespace cprof {

struct Value {
  enum class Type : uint8_t { kNull, kInt, kUint, kDouble, kString, kBool };

  Type type = Type::kNull;
  union {
    int64_t i;
    uint64_t u;
    double d;
    StringId s;
    bool b;
  };

  Value() : i(0) {}
  static Value Int(int64_t v) { Value x; x.type = Type::kInt; x.i = v; return x; }
  static Value Uint(uint64_t v) { Value x; x.type = Type::kUint; x.u = v; return x; }
  static Value Double(double v) { Value x; x.type = Type::kDouble; x.d = v; return x; }
  static Value String(StringId v) { Value x; x.type = Type::kString; x.s = v; return x; }
  static Value Bool(bool v) { Value x; x.type = Type::kBool; x.b = v; return x; }

  // Numeric view: ints, uints, doubles and bools as double; nothing for strings and null.
  bool AsDouble(double* out) const {
    switch (type) {
      case Type::kInt: *out = static_cast<double>(i); return true;
      case Type::kUint: *out = static_cast<double>(u); return true;
      case Type::kDouble: *out = d; return true;
      case Type::kBool: *out = b ? 1 : 0; return true;
      default: return false;
    }
  }
  bool operator==(const Value& o) const {
    if (type != o.type) return false;
    switch (type) {
      case Type::kNull: return true;
      case Type::kDouble: return d == o.d || (d != d && o.d != o.d);
      case Type::kBool: return b == o.b;
      case Type::kString: return s == o.s;
      default: return i == o.i;
    }
  }
};

}  // namespace cprof
