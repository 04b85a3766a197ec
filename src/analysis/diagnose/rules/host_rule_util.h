// Small helpers the host-side rules share (host_gap, dataloader, memory_churn, gc,
// thread_oversubscription, env_config_cpu, memory_fragmentation): readable durations, the
// input-pipeline vocabulary, the host-op test, step totals and collector metadata.
//
//   std::string t = Ms(12'345'678);                    // "12.3 ms"
//   if (IsInputPipelineFrame("data.py(40): __getitem__")) ...
//   std::optional<int64_t> cores = MetadataInt(trace, "cpu_cores");
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/step_detector.h"
#include "model/trace.h"

namespace cprof::host_rules {

// "12.3 ms", "850 us", "2.41 s".
std::string Ms(int64_t ns);
// "43%".
std::string Pct(double ratio);

// Whether a frame or span name belongs to an input pipeline: the generic vocabulary of data
// loading (DataLoader, Dataset.__getitem__, collate, fetch, decode, ...), never a workload's names.
bool IsInputPipelineFrame(std::string_view name);
// Whether a host slice is a data-loading span (category "dataloader", or a name with "DataLoader").
bool IsDataLoaderSpan(const Trace& trace, uint32_t row);
// Whether slice `row` is a framework operator: a namespaced name ("aten::add", "npu::...").
bool IsOperator(const Trace& trace, uint32_t row);
// Whether slice `row` is called by another operator (its parent is an operator).
bool IsNestedOperator(const Trace& trace, uint32_t row);

// The shapes in slice `row`'s "Input Dims" argument ("[[2, 64, 16, 16], [128, 64, 1, 1], []]"),
// one entry per input (empty for a non-tensor input); empty when the slice has none or the text is
// not a list of integer lists.
std::vector<std::vector<int64_t>> InputDims(const Trace& trace, uint32_t row);

// Sum of step durations.
int64_t TotalStepNs(const std::vector<Step>& steps);
// The index of the step containing `ts`, or -1 (steps sorted by start).
int64_t StepAt(const std::vector<Step>& steps, int64_t ts);

// Metadata as a number (ints, or strings holding one); nothing when absent or not a number.
std::optional<int64_t> MetadataInt(const Trace& trace, std::string_view key);
// A variable from the collector's "environment" metadata (a flat JSON object of strings).
std::optional<std::string> EnvironmentVar(const Trace& trace, std::string_view name);
bool HasEnvironment(const Trace& trace);

}  // namespace cprof::host_rules
