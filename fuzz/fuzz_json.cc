// libFuzzer target: the Chrome trace JSON reader and its dialects (Kineto, PyTorch 1.x legacy
// export, torch_npu trace_view.json; gzip'd input too, since the bytes are sniffed, not named),
// followed by TraceBuilder::Finalize (sorting, depth/parent, flow binding).
//
//   make fuzz FUZZ_SECONDS=60                       # every target, seeded from ../shared/fixtures
//   build-fuzz/fuzz/fuzz_json -max_total_time=60 -rss_limit_mb=2048 -timeout=30 CORPUS_DIR
//   build-fuzz/fuzz/fuzz_json crash-<sha1>          # replay one input
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input_files.h"
#include "import/json/json_trace_reader.h"
#include "model/trace_builder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static cprof::fuzz::ScratchDir dir("json");
  const std::string path = dir.Write("trace.json", data, size);
  cprof::Trace trace;
  cprof::TraceBuilder builder(&trace);
  if (cprof::NewJsonTraceReader()->Read(path, cprof::fuzz::kFuzzImportOptions, &builder).ok()) {
    (void)builder.Finalize();
  }
  return 0;
}
