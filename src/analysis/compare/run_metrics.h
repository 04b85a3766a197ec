// The values of a registry metric (stats/metric_registry.h) in one trace: one value per step,
// for comparing two runs step by step, and one value for the whole run, for comparing repeated
// runs with the run as the unit. `validate` is the user; `tune` can use the run values.
//
//   std::vector<Step> steps = DetectSteps(trace);
//   ASSIGN_OR_RETURN(std::vector<double> ms, StepValues(trace, steps, *step_time, {}));
//   ASSIGN_OR_RETURN(double p99, RunValue(trace, steps, *p99_latency, {}));
//
// How each metric is read from a trace (values in the registry's unit):
//   step_time, latency, p50_latency, p99_latency   per step: the step's duration (ns); per run:
//       the mean, mean, median and p99 of the step durations.
//   throughput                                     per step: items_per_step / duration (items/s);
//       per run: items / total step time.
//   device_util, compute_util                      per step: TraceLens busy (computation) time /
//       step length, %; per run: over the device-active span. Needs device work.
//   mem_peak                                       per step: the largest allocator total seen
//       in the step on one device (device memory events); else the largest resident memory
//       (a `rss.bytes` counter: it holds the host allocator's memory and the rest); else the
//       largest host allocator total. Per run: the largest overall.
//   anything else (cpu_util, mem, cache_miss, ...) a counter track named after the metric or its
//       collector series (cpu_util: cpu.percent, mem: rss.bytes, cache_miss:
//       hw.cache_misses.per_s); per step: mean of the points in the step; per run: mean of all.
// A metric a trace cannot provide is kInvalidInput saying what the trace lacks.
//
// StepStatistic says which statistic of the per-step values the metric is about (median for
// p50_latency, p99 for p99_latency, ...), so intervals and changes answer the metric's question.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "analysis/step_detector.h"
#include "base/status.h"
#include "model/trace.h"
#include "stats/bootstrap.h"
#include "stats/metric_registry.h"
#include "stats/sample_size.h"

namespace cprof {

struct RunMetricOptions {
  double items_per_step = 1;  // throughput: items (samples, tokens) one step processes
};

StatusOr<std::vector<double>> StepValues(const Trace& trace, const std::vector<Step>& steps, const MetricInfo& metric,
                                         const RunMetricOptions& options);

StatusOr<double> RunValue(const Trace& trace, const std::vector<Step>& steps, const MetricInfo& metric,
                          const RunMetricOptions& options);

// Whether the metric is read from step durations (step_time, latency, p50_latency, p99_latency,
// throughput); the others come from device work, memory events or counter tracks.
bool IsStepMetric(std::string_view name);

// The statistic of per-step values the metric names; `test` decides for the metrics that name
// none (step_time: mean under the t-test, else median).
SampleStatistic StepStatistic(const MetricInfo& metric, TwoSampleTest test);

}  // namespace cprof
