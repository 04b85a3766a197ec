// Objectives `tune` measures from a trace of each trial instead of reading them from the
// command's output: `tune --objective "p99(step):min" -- python3 train.py` runs every trial under
// `cann-profiler trace --scope framework` and reads the value from the trace it wrote.
//
//   ASSIGN_OR_RETURN(std::optional<TraceObjective> o, ParseTraceObjective("p99(step)"));  // traced
//   ParseTraceObjective("latency_ms");                                                     // nullopt
//   ASSIGN_OR_RETURN(double ms, o->Value(trace));
//
// A name with parentheses is a trace objective, FUNCTION(SPANS):
//   FUNCTION  mean, median, min, max, sum, count or pNN (p50, p90, p99, p99.9) of the spans'
//             durations, in milliseconds; or a metric of the registry (`cann-profiler metrics`)
//             in its own unit, as `validate` computes it (but throughput, below): step_time, latency,
//             p50_latency, p99_latency, throughput (steps per second of the wall time from the first's start
//             to the last's end, the gaps between them counted) over the spans; device_util, compute_util,
//             mem_peak, cpu_util, mem over the whole run.
//   SPANS     `step` (the step detector's steps: ProfilerStep#N, step annotations, repeated
//             top-level spans), the name of a span in the trace (`p99(decode)`, `cprof.span`), or
//             `run` for the whole-run metrics (`mem_peak(run)`).
// Any other name is one the command prints (a JSON line or --regex), and no trace is taken.
#pragma once

#include <optional>
#include <string>

#include "base/status.h"
#include "model/trace.h"
#include "stats/metric_registry.h"

namespace cprof::cli {

class TraceObjective {
 public:
  // The objective's value in `trace`; kNotFound when it has no steps or no span of that name
  // (listing the span names it has, the most frequent first), else kInvalidInput saying what it
  // lacks (no counter track).
  StatusOr<double> Value(const Trace& trace) const;

  const std::string& name() const { return name_; }
  // throughput: more is better, so it is maximized unless the objective says :min. Every other
  // function (durations, utilization, memory) is minimized unless it says :max.
  bool is_rate() const { return metric_ && metric_->name == "throughput"; }

 private:
  friend StatusOr<std::optional<TraceObjective>> ParseTraceObjective(const std::string& name);
  std::string name_;
  std::string spans_;                   // "step": the detected steps; "run"; else a span name
  const MetricInfo* metric_ = nullptr;  // a registry metric as the function
  std::string stat_;                    // else: mean, median, min, max, sum, count or p
  double quantile_ = 0;                 // for p: NN / 100
};

// nullopt for a name without parentheses (the command prints it); kInvalidInput for a malformed
// one ("p200(step)", "avg(step)", "p99()", "cpu_util(step)", "cache_miss(run)").
StatusOr<std::optional<TraceObjective>> ParseTraceObjective(const std::string& name);

}  // namespace cprof::cli
