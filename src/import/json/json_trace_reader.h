// Reader for Chrome trace JSON and its dialects (Kineto, PyTorch 1.x legacy, torch_npu): the
// array and object forms, .json.gz, files of any size (streamed in chunks, parsed on all
// cores), and torch_npu *_ascend_pt folders (read through their trace_view.json).
//
//   Trace trace;
//   TraceBuilder builder(&trace);
//   RETURN_IF_ERROR(NewJsonTraceReader()->Read("run.pt.trace.json.gz", {}, &builder));
//   RETURN_IF_ERROR(builder.Finalize());
//
// Errors are kInvalidInput naming the file, the byte offset and/or event index, and the reason.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "import/trace_reader.h"

namespace cprof {

std::unique_ptr<TraceReader> NewJsonTraceReader();

// What one JSON read saw, for benchmarks and tools.
struct JsonReadInfo {
  std::string file;          // the JSON file read (a folder resolves to its trace_view.json)
  uint64_t events = 0;       // entries of the events array
  uint64_t json_bytes = 0;   // bytes of JSON text (decompressed size for .gz)
};

// The reader's work, with `info` filled on success. The caller finalizes.
Status ReadJsonTrace(const std::string& path, const ImportOptions& options, TraceBuilder* builder,
                     JsonReadInfo* info);

// The simdjson kernels this build runs, e.g. "icelake (stage 1), fallback (on-demand)".
std::string JsonParserImplementation();

}  // namespace cprof
