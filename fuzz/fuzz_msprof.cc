// libFuzzer target: an msprof PROF_* folder's tables — op_summary_*.csv (the kernel table
// reader), task_time_*.csv (device tasks when there is no timeline), op/api_statistic_*.csv,
// device_N/info.json.N (the rank) and analyze/communication*.json. The input is written under
// every one of those names, then the folder is imported. The timeline JSON (msprof_*.json) goes
// through the JSON reader, which fuzz_json covers.
//
//   make fuzz FUZZ_SECONDS=60
//   build-fuzz/fuzz/fuzz_msprof -max_total_time=60 -rss_limit_mb=2048 -timeout=30 CORPUS_DIR
#include <cstddef>
#include <cstdint>

#include "fuzz/fuzz_input_files.h"
#include "import/msprof/msprof_reader.h"
#include "model/trace_builder.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static cprof::fuzz::ScratchDir dir("msprof");
  static constexpr const char* kFiles[] = {
      "mindstudio_profiler_output/op_summary_1.csv",   "mindstudio_profiler_output/task_time_1.csv",
      "mindstudio_profiler_output/op_statistic_1.csv", "mindstudio_profiler_output/api_statistic_1.csv",
      "device_0/info.json.0",                          "analyze/communication.json",
      "analyze/communication_matrix.json",
  };
  for (const char* f : kFiles) dir.Write(std::string("PROF_1/") + f, data, size);
  cprof::Trace trace;
  cprof::TraceBuilder builder(&trace);
  if (cprof::NewMsprofReader()->Read(dir.root() + "/PROF_1", cprof::fuzz::kFuzzImportOptions, &builder).ok()) {
    (void)builder.Finalize();
  }
  return 0;
}
