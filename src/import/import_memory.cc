// The import memory check and its default.
#include "import/import_memory.h"

#include <unistd.h>

#include <string>

#include "base/byte_size.h"
#include "model/trace_memory.h"

namespace cprof {

Status CheckImportMemory(const Trace& trace, const ImportOptions& options, std::string_view source) {
  if (options.max_memory_bytes == 0) return Status::Ok();
  const uint64_t used = TraceMemoryBytes(trace);
  if (used <= options.max_memory_bytes) return Status::Ok();
  return ResourceLimit(
      "{}: the trace needs more than the memory limit of {} ({} held after {} slices, {} counters, {} "
      "strings); raise it with --max_memory",
      source, FormatByteSize(options.max_memory_bytes), FormatByteSize(used), trace.slices.size(), trace.counters.size(),
      trace.strings.size());
}

uint64_t DefaultMaxMemoryBytes() {
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page = sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<uint64_t>(pages) * static_cast<uint64_t>(page) / 2;
}


}  // namespace cprof
