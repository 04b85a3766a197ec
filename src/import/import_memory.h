// The import memory limit (ImportOptions::max_memory_bytes), checked by every reader as it goes.
//
//   for (...each batch or every kMemoryCheckRows rows...) {
//     RETURN_IF_ERROR(CheckImportMemory(builder->trace(), options, path));
//   }
//
// The count is TraceMemoryBytes() (model/trace_memory.h): the importer's own bookkeeping, not the
// process's RSS, so it works under sanitizers and does not depend on the allocator.
#pragma once

#include <cstdint>
#include <string_view>

#include "base/byte_size.h"
#include "base/status.h"
#include "import/trace_reader.h"
#include "model/trace.h"

namespace cprof {

// Rows between two checks for readers that check per row (a check is O(number of columns)).
inline constexpr uint64_t kMemoryCheckRows = 1u << 14;

// kResourceLimit naming `source` and the limit once the trace holds more than the limit; OK when
// under it or when there is no limit.
Status CheckImportMemory(const Trace& trace, const ImportOptions& options, std::string_view source);

// The default for the CLI's --max-memory: half the physical RAM (0 if unknown: no limit).
uint64_t DefaultMaxMemoryBytes();

}  // namespace cprof
