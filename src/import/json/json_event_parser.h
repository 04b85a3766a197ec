// Parses the event objects of a SplitBatch with simdjson On-Demand into neutral JsonEvent
// records. Numbers that matter for exactness (ts, dur, ids) are read from their literal text,
// never through double; strings without escapes stay views into the chunk.
//
//   JsonEventParser parser;                       // one per thread
//   ParsedBatch parsed;
//   RETURN_IF_ERROR(parser.Parse(split, source_name, &parsed));
//
// A structurally broken event (bad JSON, invalid UTF-8) is an error naming the file, the byte
// offset and the event index; a well-formed event with an unusable field is returned with
// `skip` set and the stat to count. One parser per thread; Parse() is not reentrant.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "base/status.h"
#include "import/json/event_splitter.h"
#include "import/json/json_event.h"

namespace cprof::json {

class JsonEventParser {
 public:
  JsonEventParser();
  ~JsonEventParser();
  JsonEventParser(const JsonEventParser&) = delete;
  JsonEventParser& operator=(const JsonEventParser&) = delete;

  // Parses every event of `split` into `out` (which takes a reference to the chunk). `path`
  // and `compressed` only shape error messages.
  Status Parse(const SplitBatch& split, std::string_view path, bool compressed, ParsedBatch* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// The simdjson kernels in use, e.g. "icelake (stage 1), fallback (on-demand)": stage 1 is
// chosen at run time from the CPU; the on-demand front end is the one compiled in.
std::string SimdjsonImplementation();

// True when stage 1 runs a SIMD kernel (haswell, icelake, westmere, arm64, ppc64).
bool SimdjsonUsesSimd();

}  // namespace cprof::json
