// The streaming import pipeline: one thread reads and splits the input chunk by chunk, parse
// threads turn chunks into ParsedBatch records, and the calling thread applies the batches in
// file order. At most a few chunks are in flight, so memory stays bounded whatever the file size.
//
//   PipelineResult result;
//   RETURN_IF_ERROR(RunImportPipeline(source.get(), {.threads = 0}, [&](const ParsedBatch& b) {
//     return translator.Apply(b);                  // calling thread, in order
//   }, &result));
//
// The first error (I/O, malformed JSON, a limit, or one returned by `apply`) stops the pipeline and is
// returned once every earlier batch was applied; all threads are joined before returning.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>

#include "base/byte_source.h"
#include "base/status.h"
#include "import/json/json_event.h"

namespace cprof::json {

struct PipelineOptions {
  int threads = 0;                 // parse threads (at most 4); 0 = one per core; 1 = all on the caller
  size_t chunk_bytes = 8u << 20;   // bytes read per chunk
  // A chunk grows to hold one event whole; past this size (0 = no limit) the import fails with
  // kResourceLimit instead of doubling the buffer again. The JSON reader passes the memory limit.
  uint64_t max_chunk_bytes = 0;
};

struct PipelineResult {
  bool object_form = false;
  bool unterminated_array = false;
  uint64_t events = 0;
  uint64_t bytes = 0;  // JSON bytes read (decompressed)
};

Status RunImportPipeline(ByteSource* source, const PipelineOptions& options,
                         const std::function<Status(const ParsedBatch&)>& apply, PipelineResult* result);

}  // namespace cprof::json
