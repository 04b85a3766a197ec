// What the rules in this folder share: which framework the trace came from (for suggestions),
// name normalization, step lookup, cost bookkeeping and number formatting for titles.
//
//   const Framework fw = FrameworkOf(ctx);
//   f.suggestions.push_back(CompileSuggestion(fw));
//   SetCost(ctx, total_ns, f);                       // cost_total_ns and cost_per_step_ns
//   f.title = fmt::format("{} in ...", FormatNs(ns));
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/finding.h"

namespace cprof::rules {

// The framework and device of the trace, which decides the suggestion snippets.
enum class Framework { kPytorchCpu, kPytorchCuda, kTorchNpu };
Framework FrameworkOf(const DiagnosisContext& ctx);
// "torch.cuda" / "torch.npu" / "" — the device module in snippets.
std::string_view DeviceModule(Framework fw);

// "aten::add_" -> "add_", "aten::_softmax" -> "_softmax"; lowercased, namespace prefix dropped.
std::string OpBase(std::string_view name);
// The same with a trailing in-place/out suffix removed ("add_" -> "add", "mul_out" -> "mul").
std::string OpRoot(std::string_view name);
// Case-insensitive substring test.
bool ContainsNoCase(std::string_view haystack, std::string_view needle);

// Index into ctx.steps_or_span() of the step containing `ts`, or -1.
int StepIndexAt(const std::vector<Step>& steps, int64_t ts);

// cost_total_ns = total; cost_per_step_ns = total / number of steps (0 without steps).
void SetCost(const DiagnosisContext& ctx, int64_t total_ns, Finding& f);

// "12.3 ms", "850 us", "1.25 s".
std::string FormatNs(int64_t ns);
// "61%".
std::string Percent(double ratio);

// Sum of dur over `rows` of a slice set, each slice counted once even when nested in another of
// the set (outermost only).
int64_t OutermostDuration(const Trace& trace, const std::vector<uint32_t>& rows);

}  // namespace cprof::rules

namespace cprof::rules {

// Device time of the kernels launched from inside host slices (runtime calls nested in them,
// matched to device work by correlation id). Builds its index once; cheap per query.
class LaunchedDeviceTime {
 public:
  explicit LaunchedDeviceTime(const DiagnosisContext& ctx);
  // 0 on host-only traces or when nothing under `row` launched device work.
  int64_t Under(uint32_t row) const;

 private:
  const Trace& trace_;
  std::unordered_map<int64_t, int64_t> by_correlation_;  // correlation id -> device ns
};

}  // namespace cprof::rules
