// Reads the small top-level members of a trace (deviceProperties, distributedInfo,
// baseTimeNanoseconds, traceName, ...) and small side files (torch_npu profiler_info_N.json)
// with simdjson's DOM API. Objects and arrays are kept as their JSON text.
//
//   ASSIGN_OR_RETURN(TopLevelValue v, ParseTopLevelValue("{\"rank\": 3, \"world_size\": 8}"));
//   v.kind == TopLevelValue::Kind::kJson; v.FindInt("rank") == 3;
//
// Thread-safe (each call uses its own parser).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"

namespace cprof::json {

struct TopLevelValue {
  enum class Kind : uint8_t { kNull, kInt, kUint, kDouble, kBool, kString, kJson };
  Kind kind = Kind::kNull;
  int64_t i = 0;
  uint64_t u = 0;
  double d = 0;
  bool b = false;
  std::string text;  // kString: the string; kJson: the object or array as written

  // For kJson objects: the integer member `key` at the top level of the object.
  std::optional<int64_t> FindInt(std::string_view key) const;
};

// Errors (invalid JSON or UTF-8) say what is wrong, without a file name; callers add it.
StatusOr<TopLevelValue> ParseTopLevelValue(std::string_view raw);

bool IsValidUtf8(std::string_view s);

}  // namespace cprof::json
