// Operator statistics by name: how often each host operator or device kernel ran and how long
// it took in total, by itself, on average and at the tail.
//
//   OpStatsTable ops = ComputeOpStats(trace);
//   std::vector<OpStat> top = TopOps(ops.cpu, OpSortKey::kSelf, 10);
//
// Host (cpu) operators: slices on host thread tracks with category `cpu_op`; a trace with no
// cpu_op category at all (Chrome, the PyTorch 1.x legacy export) uses every host thread slice.
// ProfilerStep#N slices are steps, not operators, and are left out.
// Device kernels: the device work slices of device_work.h (kernels, memcpy, memset, NPU tasks,
// communication ops).
// total = sum of durations; self = total minus the durations of each slice's direct children on
// the same track (any category, so runtime calls inside an op are not its self time, as in
// PyTorch's self CPU time), never below zero; mean/p50/p99 are over single durations (p50/p99 by
// linear interpolation, numpy's default).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "analysis/time_window.h"
#include "model/trace.h"

namespace cprof {

struct OpStat {
  std::string name;
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t self_ns = 0;
  double mean_ns = 0;
  double p50_ns = 0;
  double p99_ns = 0;
  int64_t min_ns = 0;
  int64_t max_ns = 0;
};

struct OpStatsTable {
  std::vector<OpStat> cpu;     // sorted by total_ns, descending
  std::vector<OpStat> device;  // sorted by total_ns, descending
};

// Slices that start inside `window` count.
OpStatsTable ComputeOpStats(const Trace& trace, const TimeWindow& window = {});

enum class OpSortKey { kTotal, kSelf };
// The first `n` ops by the key (ties: by name), descending.
std::vector<OpStat> TopOps(const std::vector<OpStat>& ops, OpSortKey key, size_t n);

}  // namespace cprof
