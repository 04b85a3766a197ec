// Every operator instance of a trace, one row each, with its self time, its shapes and the step
// it ran in: the per-instance view that operator comparisons need (op_stats.h aggregates the
// same instances by name and keeps no instances).
//
//   std::vector<Step> steps = DetectSteps(trace, window);
//   OpInstances ops = CollectOpInstances(trace, window, steps);
//   for (const OpInstance& op : ops.rows) use(ops.names[op.key], op.dur_ns, op.step);
//
// Which slices are operators follows op_stats.h exactly: host ops are `cpu_op` slices on host
// threads (every host slice when the trace has no cpu_op category, as in the PyTorch 1.x legacy
// export), ProfilerStep#N excluded; device ops are the work slices of device_work.h. Self time is
// the duration minus the direct children's, never below zero. Shapes come from the "Input Dims"
// arg (Kineto) or "Input dims"/"Input Shapes" (torch_npu), whitespace removed; empty if absent.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/step_detector.h"
#include "analysis/time_window.h"
#include "model/trace.h"

namespace cprof {

struct OpInstance {
  uint32_t row = 0;     // slice row: the evidence
  uint32_t key = 0;     // index into OpInstances::keys
  int64_t ts_ns = 0;
  int64_t dur_ns = 0;
  int64_t self_ns = 0;
  int32_t step = -1;    // index into the steps passed in, -1 outside every step
};

struct OpKeyInfo {
  std::string name;
  std::string shapes;   // normalized "Input Dims" text, or empty
  std::string category; // the slice category as the source wrote it (cpu_op, kernel, ...)
  bool device = false;  // a device kernel/memcpy/... rather than a host op
};

struct OpInstances {
  std::vector<OpKeyInfo> keys;  // distinct (name, shapes, device) in order of first appearance
  std::vector<OpInstance> rows; // ordered by track, then time (the trace's slice order)
};

OpInstances CollectOpInstances(const Trace& trace, const TimeWindow& window, const std::vector<Step>& steps);

}  // namespace cprof
