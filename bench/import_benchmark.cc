// JSON import throughput: file -> finished Trace (after Finalize), in MB/s and events/s, with the
// simdjson kernels in use and the process's peak RSS. bench/run_import_bench.sh runs it on a
// tiled Kineto trace of about 600 MB.
//
//   cprof_import_benchmark [--threads N] [--repeat K] TRACE.json[.gz]
#include <sys/resource.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "import/json/json_trace_reader.h"
#include "model/trace_builder.h"

namespace {

double PeakRssMb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;  // ru_maxrss is in KiB on Linux
}

double CpuSeconds() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
         static_cast<double>(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

}  // namespace

int main(int argc, char** argv) {
  int threads = 0, repeat = 1;
  const char* path = nullptr;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) {
      threads = std::atoi(argv[++i]);
    } else if (!std::strcmp(argv[i], "--repeat") && i + 1 < argc) {
      repeat = std::atoi(argv[++i]);
    } else {
      path = argv[i];
    }
  }
  if (path == nullptr) {
    std::fprintf(stderr, "usage: %s [--threads N] [--repeat K] TRACE.json[.gz]\n", argv[0]);
    return 2;
  }
  struct stat st;
  if (stat(path, &st) != 0) {
    std::fprintf(stderr, "%s: no such file\n", path);
    return 2;
  }
  const double file_mb = static_cast<double>(st.st_size) / 1e6;
  std::printf("simdjson: %s\n", cprof::JsonParserImplementation().c_str());
  std::printf("file: %s (%.1f MB)\n", path, file_mb);
  double best = 0;
  for (int r = 0; r < repeat; ++r) {
    const double cpu0 = CpuSeconds();
    const auto t0 = std::chrono::steady_clock::now();
    cprof::JsonReadInfo info;
    size_t slices = 0;
    {
      cprof::Trace trace;
      cprof::TraceBuilder builder(&trace);
      cprof::Status s = cprof::ReadJsonTrace(path, {.threads = threads}, &builder, &info);
      if (s.ok()) s = builder.Finalize();
      if (!s.ok()) {
        std::fprintf(stderr, "%s\n", s.message().c_str());
        return 1;
      }
      slices = trace.slices.size();
      const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double mbps = file_mb / secs;
      best = std::max(best, mbps);
      std::printf("run %d: %.3f s wall, %.3f s cpu, %.1f MB/s, %.2f M events/s (%llu events, %zu slices, "
                  "%zu flows, %zu args)\n",
                  r + 1, secs, CpuSeconds() - cpu0, mbps, static_cast<double>(info.events) / secs / 1e6,
                  static_cast<unsigned long long>(info.events), slices, trace.flows.size(), trace.args.size());
    }
  }
  const double rss = PeakRssMb();
  std::printf("best: %.1f MB/s  [target >= 300 MB/s: %s]\npeak RSS: %.1f MB (%.2fx the file)\n", best,
              best >= 300 ? "ok" : "BELOW TARGET", rss, rss / file_mb);
  return 0;
}
