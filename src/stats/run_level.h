// The run-level test for a comparison of one run against one run, where the samples are steps.
//
//   RunLevelResult r = RunLevelTest(before_steps, after_steps, SampleStatistic::Median());
//   if (r.valid && r.p_value < 0.05) ...  // the level moved by more than runs wander
//
// Steps of one run are not independent replicates: they share the run's conditions, and two runs
// of the same program differ in level (load, clocks, memory placement) by more than a per-step
// test allows for. Measured on 12 A/A runs of a real PyTorch workload, a per-step Mann-Whitney
// called 37 of 66 identical pairs "changed". With one run per side that between-run variance
// cannot be estimated, so this test assumes it: each run is cut into `batches` contiguous
// batches, and a run's level is taken to be uncertain by as much as the statistic moves from
// batch to batch within that run (the batch standard deviation, not the standard error of the
// batch mean: a run-level offset is a drift that does not average out). On the log scale when
// every batch statistic is positive (the change is then a ratio):
//     t = (mean(after batches) - mean(before batches)) / sqrt(var(before) + var(after)),
// two-sided against Student's t with 2 (batches - 1) degrees of freedom. It is conservative by
// design; `validate` requires it and the per-step test to agree before it calls a change.
#pragma once

#include <span>

#include "stats/bootstrap.h"

namespace cprof {

inline constexpr int kMinBatches = 3;

struct RunLevelResult {
  bool valid = false;   // false when a side has fewer than 2 * kMinBatches values
  int batches = 0;
  bool log_scale = false;
  double t = 0;
  double df = 0;
  double p_value = 1;
};

// `batches`: 5 by default; fewer for short runs, so that each batch has at least 2 steps; not a
// test (valid false) below kMinBatches, i.e. with fewer than 6 steps on a side.
RunLevelResult RunLevelTest(std::span<const double> before, std::span<const double> after, SampleStatistic stat,
                            int batches = 5);

}  // namespace cprof
