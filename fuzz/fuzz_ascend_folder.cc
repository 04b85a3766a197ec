// libFuzzer target: the side files of a torch_npu *_ascend_pt folder — every CSV table
// (kernel_details, step_trace_time, op/api statistics, operator_details, the memory tables) and
// the JSON side files (communication*.json, profiler_info_N.json, profiler_metadata.json). The
// input is written under every one of those names in a fresh rank folder, so a seed of any one
// table reaches its reader; then the whole folder is imported (the cross-checks included).
// trace_view.json itself is left out: fuzz_json covers it, and without it the kernel table's rows
// become slices of their own, which is the path that builds the most from the CSVs.
//
//   make fuzz FUZZ_SECONDS=60
//   build-fuzz/fuzz/fuzz_ascend_folder -max_total_time=60 -rss_limit_mb=2048 -timeout=30 CORPUS_DIR
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input_files.h"
#include "import/ascend/ascend_pt_reader.h"
#include "model/trace_builder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static cprof::fuzz::ScratchDir dir("ascend");
  static constexpr const char* kFiles[] = {
      "ASCEND_PROFILER_OUTPUT/kernel_details.csv",   "ASCEND_PROFILER_OUTPUT/step_trace_time.csv",
      "ASCEND_PROFILER_OUTPUT/op_statistic.csv",     "ASCEND_PROFILER_OUTPUT/api_statistic.csv",
      "ASCEND_PROFILER_OUTPUT/operator_details.csv", "ASCEND_PROFILER_OUTPUT/memory_record.csv",
      "ASCEND_PROFILER_OUTPUT/operator_memory.csv",  "ASCEND_PROFILER_OUTPUT/npu_module_mem.csv",
      "ASCEND_PROFILER_OUTPUT/communication.json",   "ASCEND_PROFILER_OUTPUT/communication_matrix.json",
      "profiler_info_0.json",                        "profiler_metadata.json",
  };
  for (const char* f : kFiles) dir.Write(std::string("rank0_ascend_pt/") + f, data, size);
  cprof::Trace trace;
  cprof::TraceBuilder builder(&trace);
  if (cprof::NewAscendPtReader()->Read(dir.root() + "/rank0_ascend_pt", cprof::fuzz::kFuzzImportOptions, &builder)
          .ok()) {
    (void)builder.Finalize();
  }
  return 0;
}
