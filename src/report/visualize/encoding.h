// Byte encodings the page needs: gzip (the browser inflates it with DecompressionStream) and
// base64 (so the data block holds no markup, whatever the trace contains).
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace cprof {

StatusOr<std::string> GzipCompress(std::string_view bytes, int level = 6);
std::string Base64Encode(std::string_view bytes);
// Hex digits to bytes ("00ff" -> "\x00\xff"); empty on odd length or a non-hex digit.
std::string HexToBytes(std::string_view hex);

}  // namespace cprof
