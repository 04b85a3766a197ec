// What one CPU sample costs the thread it interrupts: the sampling event `trace` gives every
// target thread (collect/perf_sampler.h, CpuSamplingAttr) is opened on this thread, and a fixed
// compute kernel runs in short windows with the event alternately enabled and disabled. The
// ratio of work per second in enabled and disabled windows is the sampled thread's slowdown;
// alternating every window cancels the drift of a shared VM's speed. The rings are drained
// (records dropped) between windows, outside the timed region.
//
//   build/bench/perf_sample_cost [--hz 99,199,499,999] [--windows 60] [--window_ms 100] [--no_stack]
//
// Prints one line per rate: slowdown in percent with a bootstrap 95% interval, and the implied
// cost of one sample in microseconds.
#include <sys/sysinfo.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "collect/perf_ring.h"
#include "collect/perf_sampler.h"

namespace {

double NowS() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// A 64x64 single-precision matrix product: in cache, compute-bound, like a GEMM's inner kernel.
constexpr int kN = 64;
float a[kN * kN], b[kN * kN], c[kN * kN];
void Kernel() {
  for (int i = 0; i < kN; ++i)
    for (int k = 0; k < kN; ++k) {
      float x = a[i * kN + k];
      for (int j = 0; j < kN; ++j) c[i * kN + j] += x * b[k * kN + j];
    }
}

double WorkRate(double window_s) {
  double t0 = NowS(), t;
  long n = 0;
  do {
    Kernel();
    ++n;
    t = NowS();
  } while (t - t0 < window_s);
  return static_cast<double>(n) / (t - t0);
}

struct Result {
  double slowdown, lo, hi;
};

// Median of per-pair ratios (disabled window, enabled window), with a percentile bootstrap.
Result Summarize(const std::vector<double>& ratios) {
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  std::mt19937_64 rng(1);
  std::uniform_int_distribution<size_t> pick(0, ratios.size() - 1);
  std::vector<double> boots;
  for (int i = 0; i < 2000; ++i) {
    std::vector<double> s(ratios.size());
    for (double& x : s) x = ratios[pick(rng)];
    boots.push_back(median(s));
  }
  std::sort(boots.begin(), boots.end());
  return {1 - median(ratios), 1 - boots[1949], 1 - boots[50]};
}

std::vector<double> ParseList(const char* s) {
  std::vector<double> v;
  for (char* end; *s; s = *end ? end + 1 : end) v.push_back(std::strtod(s, &end));
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<double> rates = {99, 199, 499, 999};
  int windows = 60;
  double window_s = 0.1;
  bool stack = true;
  for (int i = 1; i < argc; ++i) {
    std::string f = argv[i];
    if (f == "--hz" && i + 1 < argc) rates = ParseList(argv[++i]);
    else if (f == "--windows" && i + 1 < argc) windows = std::atoi(argv[++i]);
    else if (f == "--window_ms" && i + 1 < argc) window_s = std::atof(argv[++i]) / 1000;
    else if (f == "--no_stack") stack = false;
    else {
      std::fprintf(stderr, "usage: %s [--hz 99,199] [--windows N] [--window_ms MS] [--no_stack]\n", argv[0]);
      return 2;
    }
  }
  for (int i = 0; i < kN * kN; ++i) {
    a[i] = 1e-3f * static_cast<float>(i % 97);
    b[i] = 1e-3f;
  }

  std::printf("%-8s %-22s %-16s %s\n", "rate", "slowdown (95% CI)", "per sample", "samples/s seen");
  for (double hz : rates) {
    perf_event_attr attr = cprof::CpuSamplingAttr(hz, stack, 16384);
    std::vector<cprof::PerfRing> rings;
    for (int cpu = 0; cpu < get_nprocs(); ++cpu) {
      auto r = cprof::PerfRing::Open(attr, 0, cpu);
      if (!r.ok()) {
        std::fprintf(stderr, "perf_sample_cost: %s\n", std::string(r.status().message()).c_str());
        return 1;
      }
      if (!r->Map(256).ok()) return 1;
      rings.push_back(std::move(*r));
    }
    long records = 0;
    double enabled_s = 0;
    auto drain = [&] {
      for (auto& r : rings) r.Drain([&](const perf_event_header* h) { records += h->type == PERF_RECORD_SAMPLE; });
    };
    std::vector<double> ratios;
    WorkRate(window_s);  // warm-up
    for (int w = 0; w < windows; ++w) {
      double off = WorkRate(window_s);
      for (auto& r : rings) r.Enable();
      double t0 = NowS();
      double on = WorkRate(window_s);
      for (auto& r : rings) r.Disable();
      enabled_s += NowS() - t0;
      drain();
      ratios.push_back(on / off);
    }
    Result res = Summarize(ratios);
    double per_s = static_cast<double>(records) / enabled_s;
    std::printf("%-8.0f %+6.2f%% [%+.2f, %+.2f]  %7.1f us       %.0f\n", hz, 100 * res.slowdown, 100 * res.lo,
                100 * res.hi, per_s > 0 ? res.slowdown / per_s * 1e6 : 0.0, per_s);
  }
  return 0;
}
