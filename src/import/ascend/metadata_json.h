// JSON text for trace metadata built from imported files: table cells, op names and problem
// messages come from the file as written, and may not be UTF-8 (a Latin-1 CSV, a multi-byte
// character cut by truncation). nlohmann's dump() throws on those; this replaces each bad byte
// with U+FFFD instead, so one odd cell cannot abort the import.
//
//   ctx->b().SetMetadataString(key, MetadataJsonText(rows));
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace cprof {

template <typename Json>
std::string MetadataJsonText(const Json& j) {
  return j.dump(-1, ' ', false, Json::error_handler_t::replace);
}

}  // namespace cprof
