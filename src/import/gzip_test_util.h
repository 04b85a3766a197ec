// Test helper: one gzip member holding `data`, for tests that build .gz inputs at test time
// (hostile inputs, decompression bombs).
//
//   std::string gz = GzipMember(json);                  // as hard as zlib can
//   std::string fast = GzipMember(json, Z_BEST_SPEED);
#pragma once

#include <zlib.h>

#include <string>
#include <string_view>

namespace cprof {

inline std::string GzipMember(std::string_view data, int level = Z_BEST_COMPRESSION) {
  std::string out(compressBound(static_cast<uLong>(data.size())) + 64, '\0');
  z_stream zs{};
  deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 9, Z_DEFAULT_STRATEGY);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
  zs.avail_in = static_cast<uInt>(data.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}

}  // namespace cprof
