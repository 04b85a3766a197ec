// libFuzzer target: the SQLite importers — Nsight Systems exports and torch_npu's db export
// (ascend_pytorch_profiler_N.db). The bytes become a database file, format detection picks the
// reader (as `cann-profiler` does), and the trace is imported and finalized. SQLite itself is the
// system library (not instrumented); what is fuzzed is our reading of whatever schema and rows a
// damaged or foreign database holds.
//
//   make fuzz FUZZ_SECONDS=60
//   build-fuzz/fuzz/fuzz_sqlite -max_total_time=60 -rss_limit_mb=2048 -timeout=30 CORPUS_DIR
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input_files.h"
#include "import/import_trace.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static cprof::fuzz::ScratchDir dir("sqlite");
  // The torch_npu name, so an Ascend database resolves to its layout; nsys ignores the name.
  const std::string path = dir.Write("ASCEND_PROFILER_OUTPUT/ascend_pytorch_profiler_0.db", data, size);
  (void)cprof::ImportTrace(path, cprof::fuzz::kFuzzImportOptions);
  return 0;
}
