// Rule aicpu_ops: operators that fell back to the AI CPU (the NPU's few general-purpose cores)
// instead of running on the AI Core / AI Vector cores (Ascend traces).
//
// Tasks: NPU device tasks whose "Accelerator Core" (kernel_details.csv) or "Task Type" (the
// trace) is AI_CPU. Share = their time / the device's kernel time (tasks other than HCCL).
// Fires when the share exceeds kThreshold (2%).
// Confidence terms:
//   magnitude   = 1 - 0.02 / share;
//   support     = n / (n + 3), n = AI CPU tasks;
//   consistency = share of steps that run an AI CPU task (1 without steps);
//   specificity = 1: the task type names the fallback.
// Saving: the AI CPU time minus, per AI CPU task, the mean duration of this trace's AI Core /
// vector kernels (what the op would cost if it ran there), never below 0.
// Common causes named in the suggestions: 64-bit or double inputs (AI Core kernels are mostly
// float16/float32/int32), and ops with no AI Core kernel (some index/sort/random ops).
#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rule.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/npu_rule_support.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.02;

struct TypeStats {
  int64_t count = 0, ns = 0;
  uint32_t longest = 0;
  bool wide_dtype = false;
  std::string dtypes;
};

class AicpuOpsRule final : public Rule {
 public:
  std::string_view name() const override { return "aicpu_ops"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    const Trace& t = ctx.trace();
    if (!npu::IsNpuTrace(t)) return;
    npu::ArgReader args(t);
    int64_t kernel_ns = 0, other_ns = 0, other_count = 0, aicpu_ns = 0;
    std::vector<uint32_t> rows;
    std::map<std::string, TypeStats> types;
    const std::vector<uint32_t> tasks = npu::DeviceTaskRows(ctx);
    const bool kernel_table = npu::HasKernelTable(args, tasks);
    for (uint32_t r : tasks) {
      const std::string_view core = args.Text(r, "Accelerator Core");
      const std::string_view task_type = args.Text(r, "Task Type");
      const bool aicpu = core == "AI_CPU" || task_type == "AI_CPU";
      if (!aicpu && !npu::IsKernelTask(args, r, kernel_table)) continue;
      const int64_t dur = t.slices.dur_ns[r];
      kernel_ns += dur;
      if (!aicpu) {
        other_ns += dur;
        ++other_count;
        continue;
      }
      aicpu_ns += dur;
      rows.push_back(r);
      TypeStats& s = types[std::string(npu::KernelType(t, args, r))];
      if (s.count == 0 || dur > t.slices.dur_ns[s.longest]) s.longest = r;
      ++s.count;
      s.ns += dur;
      const std::string_view dt = args.Text(r, "Input Data Types");
      if (dt.find("INT64") != std::string_view::npos || dt.find("DOUBLE") != std::string_view::npos ||
          dt.find("UINT64") != std::string_view::npos) {
        s.wide_dtype = true;
      }
      if (s.dtypes.empty()) s.dtypes = std::string(dt);
    }
    if (rows.empty() || kernel_ns <= 0) return;
    const double share = static_cast<double>(aicpu_ns) / static_cast<double>(kernel_ns);

    Finding f;
    f.category = Category::kAicpuOps;
    ConfidenceTerms terms;
    terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
    terms.support = SupportFromCount(static_cast<int64_t>(rows.size()));
    terms.consistency = npu::StepConsistency(t, ctx.steps(), rows);
    terms.specificity = 1.0;
    npu::SetConfidence(terms, f);
    if (f.confidence <= 0) return;

    const int64_t mean_other = other_count > 0 ? other_ns / other_count : 0;
    std::vector<std::pair<std::string, const TypeStats*>> sorted;
    int64_t wide = 0;
    for (const auto& [type, s] : types) {
      sorted.emplace_back(type, &s);
      if (s.wide_dtype) wide += s.count;
    }
    std::sort(sorted.begin(), sorted.end(), [](const auto& a, const auto& b) { return a.second->ns > b.second->ns; });
    std::string list;
    for (size_t k = 0; k < sorted.size() && k < 5; ++k)
      list += fmt::format("{}{} ({} x, {})", k ? ", " : "", sorted[k].first, sorted[k].second->count,
                          npu::FormatNs(sorted[k].second->ns));

    f.title = fmt::format("{} AI CPU tasks take {} of NPU kernel time ({})", rows.size(), npu::Percent(share),
                          npu::FormatNs(aicpu_ns));
    f.summary = fmt::format(
        "These operators ran on the AI CPU, which is far slower than the AI Core and serializes the "
        "stream: {}. {} of the tasks take 64-bit or double inputs, which AI Core kernels mostly lack.",
        list, wide);
    npu::SetCost(ctx, aicpu_ns, f);
    f.saving_ns = std::max<int64_t>(0, aicpu_ns - mean_other * static_cast<int64_t>(rows.size()));
    f.saving_method = fmt::format(
        "AI CPU time minus {} per task, the mean duration of this trace's AI Core/vector kernels.",
        npu::FormatNs(mean_other));
    f.metrics = {{"aicpu_tasks", static_cast<double>(rows.size()), "count"},
                 {"aicpu_ns", static_cast<double>(aicpu_ns), "ns"},
                 {"aicpu_kernel_fraction", share, "ratio"},
                 {"aicpu_op_types", static_cast<double>(types.size()), "count"},
                 {"aicpu_wide_dtype_tasks", static_cast<double>(wide), "count"}};
    for (size_t k = 0; k < sorted.size() && k < 5; ++k)
      f.events.push_back(ctx.EventRef(sorted[k].second->longest,
                                      fmt::format("longest {} on AI CPU (inputs {})", sorted[k].first,
                                                  sorted[k].second->dtypes.empty() ? "?" : sorted[k].second->dtypes)));
    if (wide > 0)
      f.suggestions.push_back({"Cast 64-bit/double inputs to the types AI Core kernels take before these ops "
                               "(indices to int32, values to float32).",
                               "code", "idx = idx.to(torch.int32)\nx = x.float()"});
    f.suggestions.push_back({"Replace the operator with an equivalent that has an AI Core kernel, or move it to "
                             "the input pipeline on the host (e.g. index/sort/unique on labels).",
                             "code", "# e.g. compute on host once: mask = mask.cpu().numpy(); ... torch.from_numpy(...).npu()"});
    f.suggestions.push_back({"List which ops fall back and why: the CANN operator list states each op's AI Core "
                             "dtype support.",
                             "command", "msprof-analyze advisor computation -d <profiling dir>"});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeAicpuOpsRule() { return std::make_unique<AicpuOpsRule>(); }

}  // namespace cprof
