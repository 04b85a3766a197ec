// Sizes as users write them on the command line: --max-memory 4G, --trigger "mem>10G".
//
//   ParseByteSize("4G") == 4 << 30;  ParseByteSize("512MiB") == 512 << 20;  ParseByteSize("1000") == 1000
//
// One syntax everywhere: a number of bytes with an optional K, M, G or T suffix, any case, with or
// without a trailing B or iB — all binary (4G = 4GB = 4GiB = 4 << 30), as memory is counted.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/status.h"

namespace cprof {

// kInvalidInput naming the text when it is not a size (negative, no digits, unknown suffix).
StatusOr<uint64_t> ParseByteSize(std::string_view text);

// For messages: the largest binary unit that leaves a whole part, with one decimal below 10
// ("1 KiB", "1.5 GiB", "512 MiB", "800 B"); a limit of 1K printed in MiB read "0 MiB".
std::string FormatByteSize(uint64_t bytes);

}  // namespace cprof
