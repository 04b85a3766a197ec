// gzip via zlib, base64, hex.
#include "report/visualize/encoding.h"

#include <zlib.h>

#include <algorithm>

namespace cprof {

StatusOr<std::string> GzipCompress(std::string_view bytes, int level) {
  z_stream zs{};
  // 15 + 16: a gzip wrapper, which DecompressionStream("gzip") expects.
  if (deflateInit2(&zs, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
    return Internal("gzip: deflateInit2 failed");
  }
  std::string out;
  constexpr size_t kChunk = 1 << 20;
  size_t pos = 0;
  int rc = Z_OK;
  do {
    size_t take = std::min(kChunk, bytes.size() - pos);
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(bytes.data() + pos));
    zs.avail_in = static_cast<uInt>(take);
    pos += take;
    int flush = pos == bytes.size() ? Z_FINISH : Z_NO_FLUSH;
    do {
      size_t old = out.size();
      out.resize(old + kChunk);
      zs.next_out = reinterpret_cast<Bytef*>(out.data() + old);
      zs.avail_out = static_cast<uInt>(kChunk);
      rc = deflate(&zs, flush);
      out.resize(old + kChunk - zs.avail_out);
    } while (zs.avail_out == 0);
  } while (pos < bytes.size());
  deflateEnd(&zs);
  if (rc != Z_STREAM_END) return Internal("gzip: deflate failed ({})", rc);
  return out;
}

std::string Base64Encode(std::string_view in) {
  static constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  out.reserve((in.size() + 2) / 3 * 4);
  size_t i = 0;
  auto b = [&](size_t k) { return static_cast<uint32_t>(static_cast<unsigned char>(in[k])); };
  for (; i + 3 <= in.size(); i += 3) {
    uint32_t v = (b(i) << 16) | (b(i + 1) << 8) | b(i + 2);
    out.push_back(kAlphabet[v >> 18]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back(kAlphabet[v & 63]);
  }
  if (i + 1 == in.size()) {
    uint32_t v = b(i) << 16;
    out.push_back(kAlphabet[v >> 18]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.append("==");
  } else if (i + 2 == in.size()) {
    uint32_t v = (b(i) << 16) | (b(i + 1) << 8);
    out.push_back(kAlphabet[v >> 18]);
    out.push_back(kAlphabet[(v >> 12) & 63]);
    out.push_back(kAlphabet[(v >> 6) & 63]);
    out.push_back('=');
  }
  return out;
}

std::string HexToBytes(std::string_view hex) {
  auto digit = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  if (hex.size() % 2) return {};
  std::string out;
  for (size_t i = 0; i < hex.size(); i += 2) {
    int hi = digit(hex[i]), lo = digit(hex[i + 1]);
    if (hi < 0 || lo < 0) return {};
    out.push_back(static_cast<char>(hi * 16 + lo));
  }
  return out;
}

}  // namespace cprof
