// What the Nsight Systems importer tests share: a slice argument as text.
//
//   EXPECT_EQ(ArgText(trace, row, "copy_kind"), "HtoD");
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "model/trace.h"

namespace cprof::nsys_test {

// The argument `key` of slice `row`: a string as is, a number in decimal; "" when absent.
inline std::string ArgText(const Trace& t, uint32_t row, std::string_view key) {
  auto v = t.SliceArg(row, key);
  if (!v) return "";
  if (v->type == Value::Type::kString) return std::string(t.Str(v->s));
  return std::to_string(v->i);
}

}  // namespace cprof::nsys_test
