// Cost of the public SDK's hot path (cprof.h): one span = begin + end, each a 32-byte record
// in the calling thread's ring buffer with a TSC timestamp, no lock, no system call.
//
// Run it through bench/run_sdk_bench.sh, which runs it traced (CPROF_SESSION_DIR set: records
// are kept) and not traced (every call returns at once). The target: <= 20 ns per span.
//
//   BM_Span          the hot path: batches that fit the ring, written out between batches
//                    (outside the timed region), as a real workload's spans are
//   BM_SpanSustained back to back forever, so the cost of writing the records out is included
//   BM_ScopeMacro    CPROF_SCOPE (static name + RAII), the C++ spelling
#include <time.h>
#include <x86intrin.h>

#include <chrono>

#include <benchmark/benchmark.h>

#include "cann_profiler/cprof.h"

namespace {

constexpr int kBatch = 4096;  // spans per timed batch: 8192 records, a quarter of a ring

void BM_Span(benchmark::State& state) {
  const cprof_name_t name = cprof_name("bench_span");
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) {
      cprof_span_begin(name);
      cprof_span_end(name);
    }
    auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    cprof_flush();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["ns_per_span"] = benchmark::Counter(static_cast<double>(state.iterations() * kBatch),
                                                     benchmark::Counter::kIsRate | benchmark::Counter::kInvert,
                                                     benchmark::Counter::kIs1000);
  state.SetLabel(cprof_enabled() ? "traced" : "not traced");
}
BENCHMARK(BM_Span)->UseManualTime();
BENCHMARK(BM_Span)->UseManualTime()->Threads(2);

void BM_ScopeMacro(benchmark::State& state) {
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) {
      CPROF_SCOPE("bench_scope");
      benchmark::ClobberMemory();
    }
    auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    cprof_flush();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.SetLabel(cprof_enabled() ? "traced" : "not traced");
}
BENCHMARK(BM_ScopeMacro)->UseManualTime();

void BM_SpanSustained(benchmark::State& state) {
  const cprof_name_t name = cprof_name("bench_sustained");
  for (auto _ : state) {
    cprof_span_begin(name);
    cprof_span_end(name);
  }
  state.SetItemsProcessed(state.iterations());
  state.SetLabel(cprof_enabled() ? "traced" : "not traced");
}
BENCHMARK(BM_SpanSustained);

void BM_Counter(benchmark::State& state) {
  const cprof_name_t name = cprof_name("bench_counter");
  double v = 0;
  for (auto _ : state) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) cprof_counter(name, v += 1);
    auto t1 = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(t1 - t0).count());
    cprof_flush();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
}
BENCHMARK(BM_Counter)->UseManualTime();

// References: what a timestamp alone costs.
void BM_Rdtsc(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(__rdtsc());
}
BENCHMARK(BM_Rdtsc);

void BM_ClockGettimeMonotonic(benchmark::State& state) {
  timespec ts;
  for (auto _ : state) {
    clock_gettime(CLOCK_MONOTONIC, &ts);
    benchmark::DoNotOptimize(ts);
  }
}
BENCHMARK(BM_ClockGettimeMonotonic);

}  // namespace

BENCHMARK_MAIN();
