// Rule npu_env_config: environment settings of a torch_npu run that cost time or memory, read
// from profiler_metadata.json's ENV_VARIABLES (metadata `environment`, a JSON object) and weighed
// by what the trace shows. One finding listing every setting that is off.
//
// Checked settings, each with an observed symptom and the threshold its magnitude uses
// (1 - threshold / observed):
//   PYTORCH_NPU_ALLOC_CONF without expandable_segments:True — fragmentation at peak reserved
//     memory, 1 - allocated / reserved (counters "... Total Allocated/Reserved"), threshold 0.05;
//     0.5 when the trace has no memory counters (setting off, cost unmeasured).
//   ACLNN_CACHE_LIMIT unset or < 10000 — device Free share of the steps (host-bound indicator,
//     Overlap Analysis), threshold 0.10; 0.5 without Overlap Analysis.
//   HOST_CACHE_CAPACITY unset or 0 — only with dynamic shapes: max of (dynamic kernels' share,
//     threshold 0.5) and (host time in online compilation / step time, threshold 0.02).
//   ASCEND_LAUNCH_BLOCKING=1 — every launch synchronous: 0.95.
//   ASCEND_GLOBAL_LOG_LEVEL 0/1 (debug/info) — 0.8; 2 (warning) — 0.3.
//   HCCL_ALGO set — a fixed algorithm instead of HCCL's choice: 0.3.
// Confidence terms:
//   magnitude   = the largest item magnitude;
//   support     = n / (n + 3), n = settings flagged;
//   consistency = 1 (settings hold for the whole run);
//   specificity = 0.6: the settings are read off, their effect on this run is inferred.
// Saving: when an op-cache setting is flagged, the host time spent preparing operators (CANN
// workspace queries "GetWorkspaceSize" and "_Tiling" calls) that cached executors skip, capped at
// the device's Free time; 0 otherwise (the allocator setting saves memory, not time).
#include <algorithm>
#include <memory>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rule.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/npu_rule_support.h"
#include "analysis/overlap_analysis.h"

namespace cprof {
namespace {

struct Item {
  std::string var, value, why;
  double magnitude = 0;
  Suggestion suggestion;
};

// Peak reserved memory and the allocated memory at that moment, from the counter tracks whose
// names contain "Total Reserved" / "Total Allocated" (torch_npu's PTA counters preferred).
std::optional<double> FragmentationAtPeak(const Trace& t) {
  auto find_track = [&](std::string_view what) -> std::optional<uint32_t> {
    std::optional<uint32_t> any;
    for (uint32_t k = 0; k < t.tracks.size(); ++k) {
      if (t.tracks.kind[k] != TrackKind::kCounter) continue;
      std::string_view n = t.Str(t.tracks.name_id[k]);
      if (n.find(what) == std::string_view::npos) continue;
      if (n.substr(0, 4) == "PTA ") return k;
      if (!any) any = k;
    }
    return any;
  };
  std::optional<uint32_t> res = find_track("Total Reserved"), alloc = find_track("Total Allocated");
  if (!res || !alloc) return std::nullopt;
  const CounterTable& c = t.counters;
  int64_t peak_ts = 0;
  double peak = -1;
  for (size_t i = 0; i < c.size(); ++i)
    if (Index(c.track_id[i]) == *res && c.value[i] > peak) {
      peak = c.value[i];
      peak_ts = c.ts_ns[i];
    }
  if (peak <= 0) return std::nullopt;
  double allocated = -1;
  int64_t best = INT64_MIN;
  for (size_t i = 0; i < c.size(); ++i)
    if (Index(c.track_id[i]) == *alloc && c.ts_ns[i] <= peak_ts && c.ts_ns[i] >= best) {
      best = c.ts_ns[i];
      allocated = c.value[i];
    }
  if (allocated < 0) return std::nullopt;
  return std::clamp(1.0 - allocated / peak, 0.0, 1.0);
}

int64_t ToInt(const std::string& s, int64_t fallback) {
  try {
    return s.empty() ? fallback : std::stoll(s);
  } catch (...) {
    return fallback;
  }
}

class NpuEnvConfigRule final : public Rule {
 public:
  std::string_view name() const override { return "npu_env_config"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    const Trace& t = ctx.trace();
    if (!npu::IsNpuTrace(t)) return;
    const std::string text = t.MetadataText("environment");
    if (text.empty()) return;
    const nlohmann::json env = nlohmann::json::parse(text, nullptr, false);
    if (!env.is_object()) return;
    auto get = [&](const char* k) -> std::optional<std::string> {
      auto it = env.find(k);
      if (it == env.end()) return std::nullopt;
      return it->is_string() ? it->get<std::string>() : it->dump();
    };

    // Evidence from the trace.
    const std::optional<double> frag = FragmentationAtPeak(t);
    std::optional<double> free_share;
    if (HasOverlapAnalysis(t)) {
      int64_t free = 0, stage = 0;
      for (const StepTraceTime& s : ComputeStepTraceTime(t, ctx.steps())) {
        free += s.free_ns;
        stage += s.stage_ns > 0 ? s.stage_ns : s.window_end_ns - s.window_start_ns;
      }
      if (stage > 0) free_share = static_cast<double>(free) / static_cast<double>(stage);
    }
    npu::ArgReader args(t);
    int64_t dynamic = 0, stated = 0;
    for (uint32_t r : npu::DeviceTaskRows(ctx)) {
      std::string_view st = args.Text(r, "OP State");
      dynamic += st == "dynamic";
      stated += st == "dynamic" || st == "static";
    }

    std::vector<Item> items;
    if (auto v = get("PYTORCH_NPU_ALLOC_CONF"); v && v->find("expandable_segments:True") == std::string::npos) {
      items.push_back({"PYTORCH_NPU_ALLOC_CONF", *v,
                       frag ? fmt::format("{} of reserved NPU memory was not allocated at the peak", npu::Percent(*frag))
                            : "the caching allocator splits fixed segments",
                       frag ? MagnitudeOverThreshold(*frag, 0.05) : 0.5,
                       {"Let the caching allocator grow segments instead of reserving new fixed blocks (less "
                        "fragmentation, fewer out-of-memory retries).",
                        "env", "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"}});
    }
    bool cache_flagged = false;
    if (auto v = get("ACLNN_CACHE_LIMIT"); v && ToInt(*v, 0) < 10000) {
      cache_flagged = true;
      items.push_back({"ACLNN_CACHE_LIMIT", *v,
                       free_share ? fmt::format("the device is free {} of the step (host-bound)", npu::Percent(*free_share))
                                  : "the aclnn executor cache is left at its default",
                       free_share ? MagnitudeOverThreshold(*free_share, 0.10) : 0.5,
                       {"Cache more aclnn operator executors so repeated ops skip their host-side preparation.",
                        "env", "export ACLNN_CACHE_LIMIT=100000"}});
    }
    // Dynamic shapes: the kernels' op state, or host time compiling operators online.
    int64_t compile_ns = 0, wall = 0;
    for (uint32_t r : npu::HostSlicesNamed(ctx, {"aclopCompile", "opCompile"})) compile_ns += t.slices.dur_ns[r];
    for (const Step& s : ctx.steps()) wall += s.dur_ns;
    if (wall <= 0) wall = ctx.span_ns();
    const double dyn_share = stated > 0 ? static_cast<double>(dynamic) / static_cast<double>(stated) : 0.0;
    const double compile_share = static_cast<double>(compile_ns) / static_cast<double>(wall);
    const double dyn_magnitude =
        std::max(MagnitudeOverThreshold(dyn_share, 0.5), MagnitudeOverThreshold(compile_share, 0.02));
    if (auto v = get("HOST_CACHE_CAPACITY"); v && ToInt(*v, 0) == 0 && dyn_magnitude > 0) {
      cache_flagged = true;
      items.push_back({"HOST_CACHE_CAPACITY", *v,
                       fmt::format("{} of kernels are dynamic-shape, {} of step time compiles operators",
                                   npu::Percent(dyn_share), npu::Percent(compile_share)),
                       dyn_magnitude,
                       {"Cache the execution data of recently seen input shapes for dynamic-shape operators.",
                        "env", "export HOST_CACHE_CAPACITY=20"}});
    }
    if (auto v = get("ASCEND_LAUNCH_BLOCKING"); v && ToInt(*v, 0) == 1) {
      items.push_back({"ASCEND_LAUNCH_BLOCKING", *v, "every operator launch waits for the device", 0.95,
                       {"Launch asynchronously (blocking launches are for debugging).", "env",
                        "export ASCEND_LAUNCH_BLOCKING=0"}});
    }
    if (auto v = get("ASCEND_GLOBAL_LOG_LEVEL"); v && !v->empty() && ToInt(*v, 3) != 3) {
      const int64_t level = ToInt(*v, 3);
      items.push_back({"ASCEND_GLOBAL_LOG_LEVEL", *v, "CANN logs below error level on the hot path",
                       level <= 1 ? 0.8 : 0.3,
                       {"Log errors only in production runs.", "env", "export ASCEND_GLOBAL_LOG_LEVEL=3"}});
    }
    if (auto v = get("HCCL_ALGO"); v && !v->empty()) {
      items.push_back({"HCCL_ALGO", *v, "a fixed collective algorithm overrides HCCL's choice by topology and size",
                       0.3, {"Let HCCL choose the algorithm unless a measurement shows the fixed one is faster.",
                             "command", "unset HCCL_ALGO"}});
    }
    if (items.empty()) return;

    double magnitude = 0;
    for (const Item& i : items) magnitude = std::max(magnitude, i.magnitude);
    Finding f;
    f.category = Category::kEnvConfig;
    ConfidenceTerms terms;
    terms.magnitude = magnitude;
    terms.support = SupportFromCount(static_cast<int64_t>(items.size()));
    terms.consistency = 1.0;
    terms.specificity = 0.6;
    npu::SetConfidence(terms, f);
    if (f.confidence <= 0) return;

    std::sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.magnitude > b.magnitude; });
    std::string names;
    for (const Item& i : items) names += (names.empty() ? "" : ", ") + i.var;
    f.title = fmt::format("{} environment setting(s) to change: {}", items.size(), names);
    for (const Item& i : items)
      f.summary += fmt::format("{}={} ({}). ", i.var, i.value.empty() ? "<unset>" : i.value, i.why);

    int64_t prep_ns = 0;
    if (cache_flagged) {
      for (uint32_t r : npu::HostSlicesNamed(ctx, {"GetWorkspaceSize", "_Tiling"})) prep_ns += t.slices.dur_ns[r];
    }
    int64_t saving = prep_ns;
    if (free_share) {
      int64_t free = 0;
      for (const StepTraceTime& s : ComputeStepTraceTime(t, ctx.steps())) free += s.free_ns;
      saving = std::min(saving, free);
    }
    npu::SetCost(ctx, prep_ns, f);
    f.saving_ns = saving;
    f.saving_method =
        cache_flagged ? "Upper bound: the host time preparing operators (workspace queries, tiling) that warm "
                        "executor/shape caches skip, capped at the device's Free time; the allocator setting "
                        "saves memory, counted 0."
                      : "Not a time saving: the settings flagged change memory use or robustness, counted 0.";
    f.metrics.push_back({"settings_flagged", static_cast<double>(items.size()), "count"});
    if (frag) f.metrics.push_back({"memory_fragmentation_at_peak", *frag, "ratio"});
    if (free_share) f.metrics.push_back({"device_free_fraction", *free_share, "ratio"});
    if (stated > 0) f.metrics.push_back({"dynamic_op_fraction", static_cast<double>(dynamic) / static_cast<double>(stated), "ratio"});
    f.metrics.push_back({"op_preparation_ns", static_cast<double>(prep_ns), "ns"});
    for (const Item& i : items) {
      f.metrics.push_back({"flag." + i.var, i.magnitude, "ratio"});
      f.suggestions.push_back(i.suggestion);
    }
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeNpuEnvConfigRule() { return std::make_unique<NpuEnvConfigRule>(); }

}  // namespace cprof
