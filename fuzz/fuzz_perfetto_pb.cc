// libFuzzer target: the Perfetto protobuf reader (our own .pb files: track events, interned data,
// and cann-profiler's private payload), followed by Finalize. Seeds are .pb files that
// fuzz_make_pb_seeds writes from the JSON fixtures (see fuzz/run_fuzzers.sh).
//
//   make fuzz FUZZ_SECONDS=60
//   build-fuzz/fuzz/fuzz_perfetto_pb -max_total_time=60 -rss_limit_mb=2048 -timeout=30 CORPUS_DIR
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input_files.h"
#include "import/perfetto/perfetto_trace_reader.h"
#include "model/trace_builder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static cprof::fuzz::ScratchDir dir("pb");
  const std::string path = dir.Write("trace.pb", data, size);
  cprof::Trace trace;
  cprof::TraceBuilder builder(&trace);
  if (cprof::NewPerfettoTraceReader()->Read(path, cprof::fuzz::kFuzzImportOptions, &builder).ok()) {
    (void)builder.Finalize();
  }
  return 0;
}
