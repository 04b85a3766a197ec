// Time to diagnose an Ascend run: import of the torch_npu folder plus Diagnose() (every rule),
// and Diagnose() alone on an imported trace. Target (issue 5): a tenth of msprof-analyze
// advisor's 2.3 s on the rank0 fixture, i.e. import + diagnosis under 230 ms.
//
//   npu_diagnose_benchmark [--benchmark_filter=...]   # fixture from CPROF_FIXTURES_DIR
//   CPROF_NPU_TRACE=/path/to/rank0_ascend_pt npu_diagnose_benchmark
#include <cstdlib>
#include <string>

#include <benchmark/benchmark.h>

#include "analysis/diagnose/diagnose.h"
#include "import/import_trace.h"

namespace cprof {
namespace {

std::string TracePath() {
  if (const char* p = std::getenv("CPROF_NPU_TRACE")) return p;
  return std::string(CPROF_FIXTURES_DIR) + "/ascend/text_level1/rank0_ascend_pt";
}

void BM_ImportAndDiagnose(benchmark::State& state) {
  const std::string path = TracePath();
  size_t findings = 0;
  for (auto _ : state) {
    StatusOr<Trace> trace = ImportTrace(path);
    if (!trace.ok()) {
      state.SkipWithError(trace.status().message().c_str());
      return;
    }
    Diagnosis d = Diagnose(*trace, DiagnoseOptions{});
    findings = d.findings.size();
    benchmark::DoNotOptimize(d);
  }
  state.counters["findings"] = static_cast<double>(findings);
}
BENCHMARK(BM_ImportAndDiagnose)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_DiagnoseOnly(benchmark::State& state) {
  StatusOr<Trace> trace = ImportTrace(TracePath());
  if (!trace.ok()) {
    state.SkipWithError(trace.status().message().c_str());
    return;
  }
  for (auto _ : state) {
    Diagnosis d = Diagnose(*trace, DiagnoseOptions{});
    benchmark::DoNotOptimize(d);
  }
}
BENCHMARK(BM_DiagnoseOnly)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace cprof

BENCHMARK_MAIN();
