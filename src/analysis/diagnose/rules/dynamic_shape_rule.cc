// Rule dynamic_shape: Ascend operators compiled at run time for the shapes they meet (dynamic
// shape / online compilation), instead of running prebuilt static or binary kernels.
//
// Two observations, both from the torch_npu export:
//  - the kernels' "OP State" (kernel_details.csv): "dynamic" or "static"; dynamic_share = dynamic
//    tasks / tasks with a state. msprof-analyze reports dynamic shape when no operator is static.
//  - host time on the online-compilation path: CANN API slices whose name contains
//    "aclopCompile" or "opCompile" (outermost only), as a share of the steps' wall time.
// Fires when dynamic_share > 0.5 or compile_share > 0.02.
// Confidence terms:
//   magnitude   = max(1 - 0.5 / dynamic_share, 1 - 0.02 / compile_share);
//   support     = n / (n + 3), n = compile calls, else dynamic tasks;
//   consistency = share of steps with a compile call (with calls), else of steps with a dynamic task;
//   specificity = 1 when compile calls are seen (the cost is measured), 0.7 when only the op
//                 state says dynamic (that it costs time is inferred).
// Saving: compile-path time minus, per call, the median duration of the trace's other operator
// launch calls (aclnn*, the binary-kernel path it would take), capped at the device's Free time in
// the steps when the Overlap Analysis gives it (host time only costs while the device waits).
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

constexpr double kDynamicThreshold = 0.5;
constexpr double kCompileThreshold = 0.02;

class DynamicShapeRule final : public Rule {
 public:
  std::string_view name() const override { return "dynamic_shape"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    const Trace& t = ctx.trace();
    if (!npu::IsNpuTrace(t)) return;
    npu::ArgReader args(t);

    int64_t dynamic = 0, stated = 0;
    std::vector<uint32_t> dyn_rows;
    std::map<std::string, int64_t> dyn_types;  // kernel type -> dynamic task count
    for (uint32_t r : npu::DeviceTaskRows(ctx)) {
      const std::string_view state = args.Text(r, "OP State");
      if (state == "dynamic") {
        ++dynamic;
        dyn_rows.push_back(r);
        ++dyn_types[std::string(npu::KernelType(t, args, r))];
      }
      if (state == "dynamic" || state == "static") ++stated;
    }
    const double dynamic_share = stated > 0 ? static_cast<double>(dynamic) / static_cast<double>(stated) : 0.0;

    const std::vector<uint32_t> compiles = npu::HostSlicesNamed(ctx, {"aclopCompile", "opCompile"});
    int64_t compile_ns = 0;
    for (uint32_t r : compiles) compile_ns += t.slices.dur_ns[r];
    const std::vector<Step>& steps = ctx.steps();
    int64_t wall = 0;
    for (const Step& s : steps) wall += s.dur_ns;
    if (wall <= 0) wall = ctx.span_ns();
    const double compile_share = static_cast<double>(compile_ns) / static_cast<double>(wall);

    const double magnitude = std::max(MagnitudeOverThreshold(dynamic_share, kDynamicThreshold),
                                      MagnitudeOverThreshold(compile_share, kCompileThreshold));
    if (magnitude <= 0) return;

    // The binary-kernel launch path's typical cost: aclnn* calls other than workspace queries.
    std::vector<int64_t> launches;
    for (uint32_t r : npu::HostSlicesNamed(ctx, {"@aclnn"})) {
      std::string_view n = t.Str(t.slices.name_id[r]);
      if (n.find("GetWorkspaceSize") == std::string_view::npos) launches.push_back(t.slices.dur_ns[r]);
    }
    int64_t baseline = 0;
    if (!launches.empty()) {
      std::nth_element(launches.begin(), launches.begin() + launches.size() / 2, launches.end());
      baseline = launches[launches.size() / 2];
    }
    int64_t saving = std::max<int64_t>(0, compile_ns - baseline * static_cast<int64_t>(compiles.size()));
    const std::optional<int64_t> free = npu::DeviceFreeNs(ctx);
    if (free) saving = std::min(saving, *free);

    Finding f;
    f.category = Category::kDynamicShape;
    ConfidenceTerms terms;
    terms.magnitude = magnitude;
    terms.support = SupportFromCount(compiles.empty() ? dynamic : static_cast<int64_t>(compiles.size()));
    terms.consistency = npu::StepConsistency(t, steps, compiles.empty() ? dyn_rows : compiles);
    terms.specificity = compiles.empty() ? 0.7 : 1.0;
    npu::SetConfidence(terms, f);
    if (f.confidence <= 0) return;

    std::vector<std::pair<int64_t, std::string>> types;
    for (const auto& [type, n] : dyn_types) types.emplace_back(n, type);
    std::sort(types.begin(), types.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    std::string type_list;
    for (size_t k = 0; k < types.size() && k < 6; ++k)
      type_list += fmt::format("{}{} ({})", k ? ", " : "", types[k].second, types[k].first);

    const std::string state_part =
        stated > 0 ? fmt::format("{} of kernels dynamic", npu::Percent(dynamic_share)) : "op state not recorded";
    f.title = compiles.empty()
                  ? fmt::format("{} of NPU operators run as dynamic-shape kernels", npu::Percent(dynamic_share))
                  : fmt::format("Dynamic-shape operators: {}, {} of host time in {} online compilations", state_part,
                                npu::FormatNs(compile_ns), compiles.size());
    f.summary = fmt::format(
        "{} of {} kernels with an op state are dynamic{}. {} calls took the online-compilation path "
        "(aclopCompileAndExecute / opCompile), {} of host time ({} of the steps' wall time), on the "
        "thread that feeds the NPU. With jit_compile off, torch_npu runs prebuilt binary kernels instead.",
        dynamic, stated, type_list.empty() ? "" : fmt::format(" (most: {})", type_list), compiles.size(),
        npu::FormatNs(compile_ns), npu::Percent(compile_share));
    npu::SetCost(ctx, compile_ns, f);
    f.saving_ns = saving;
    f.saving_method = fmt::format(
        "Compile-path host time minus {} per call (the median aclnn launch call of this trace){}.",
        npu::FormatNs(baseline), free ? ", capped at the device's Free time in the steps" : "");
    f.metrics = {{"dynamic_op_fraction", dynamic_share, "ratio"},
                 {"dynamic_tasks", static_cast<double>(dynamic), "count"},
                 {"tasks_with_op_state", static_cast<double>(stated), "count"},
                 {"compile_calls", static_cast<double>(compiles.size()), "count"},
                 {"compile_ns", static_cast<double>(compile_ns), "ns"},
                 {"compile_wall_fraction", compile_share, "ratio"},
                 {"binary_launch_median_ns", static_cast<double>(baseline), "ns"}};
    std::vector<uint32_t> longest = compiles;
    std::sort(longest.begin(), longest.end(),
              [&](uint32_t a, uint32_t b) { return t.slices.dur_ns[a] > t.slices.dur_ns[b]; });
    for (size_t k = 0; k < longest.size() && k < 5; ++k)
      f.events.push_back(ctx.EventRef(longest[k], "online compilation on the dispatch path"));
    for (size_t k = 0; k < types.size() && k < 3; ++k)
      for (uint32_t r : dyn_rows)
        if (npu::KernelType(t, args, r) == types[k].second) {
          f.events.push_back(ctx.EventRef(r, fmt::format("dynamic-shape {} kernel", types[k].second)));
          break;
        }

    f.suggestions.push_back({"Run prebuilt binary kernels instead of compiling operators online (torch_npu's "
                             "default from 2.1 on; set it explicitly at start-up).",
                             "code", "torch_npu.npu.set_compile_mode(jit_compile=False)"});
    f.suggestions.push_back({"When shapes really vary (variable sequence lengths), cache the execution data of the "
                             "recent shapes, and pad inputs to a few bucket sizes.",
                             "env", "export HOST_CACHE_CAPACITY=20"});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeDynamicShapeRule() { return std::make_unique<DynamicShapeRule>(); }

}  // namespace cprof
