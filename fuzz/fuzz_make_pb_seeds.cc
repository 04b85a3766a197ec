// Seed maker for fuzz_perfetto_pb: imports each trace named on the command line and writes it as
// our .pb (the Perfetto writer), so the protobuf fuzzer starts from files cann-profiler really
// writes. Not a fuzz target; run by fuzz/run_fuzzers.sh.
//
//   fuzz_make_pb_seeds OUT_DIR ../shared/fixtures/kineto/hta/cpu_only/rank-34...json.gz ...
#include <cstdio>
#include <string>

#include "export/export_trace.h"
#include "import/import_trace.h"

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s OUT_DIR TRACE...\n", argv[0]);
    return 2;
  }
  int written = 0;
  for (int i = 2; i < argc; ++i) {
    cprof::StatusOr<cprof::Trace> trace = cprof::ImportTrace(argv[i], {.threads = 1});
    if (!trace.ok()) {
      std::fprintf(stderr, "skip %s: %s\n", argv[i], trace.status().message().c_str());
      continue;
    }
    std::string out = std::string(argv[1]) + "/seed_" + std::to_string(i - 1) + ".pb";
    cprof::Status st = cprof::ExportTrace(*trace, out, cprof::ExportFormat::kPerfettoPb);
    if (!st.ok()) {
      std::fprintf(stderr, "skip %s: %s\n", argv[i], st.message().c_str());
      continue;
    }
    ++written;
  }
  std::printf("%d .pb seeds\n", written);
  return written > 0 ? 0 : 1;
}
