// The one interface every importer implements. A reader turns one input (a file or a folder)
// into rows through a TraceBuilder; it never touches the Trace's tables directly.
//
// Errors: a Status of kInvalidInput whose message names the file, the byte offset or event
// index, and the reason. Recoverable oddities are counted in import stats instead.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "base/byte_source.h"
#include "base/status.h"
#include "model/trace_builder.h"

namespace cprof {

struct ImportOptions {
  int threads = 0;              // parse threads; 0 = all cores
  // The trace's memory (TraceBuilder::MemoryBytes(): table rows, args, strings) past which the
  // import fails with kResourceLimit naming the file and the limit; readers check it every
  // batch. 0 = no limit (the CLI's --max-memory defaults to half the physical RAM).
  uint64_t max_memory_bytes = 0;
  // Gzip inputs: decompressed : compressed ratio and decompressed total (see DecompressionLimits).
  DecompressionLimits decompression{};
  // Profiler folders (torch_npu, msprof): read only the summary tables (step_trace_time.csv,
  // communication*.json, profiler_info) and skip the full trace; what `cluster` needs by default.
  bool summary_tables_only = false;
};

class TraceReader {
 public:
  virtual ~TraceReader() = default;
  // Short name of the format family, e.g. "json", "perfetto_pb".
  virtual std::string_view name() const = 0;
  // Reads `path` into `builder`; the caller finalizes.
  virtual Status Read(const std::string& path, const ImportOptions& options, TraceBuilder* builder) = 0;
};

}  // namespace cprof
