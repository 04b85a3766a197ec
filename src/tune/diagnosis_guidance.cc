// Guidance from a diagnosis: finding categories -> tunable knobs (diagnosis_guidance.h).
#include "tune/diagnosis_guidance.h"

#include <algorithm>
#include <thread>

#include <fmt/format.h>

#include "base/intra_op_threads.h"
#include "base/torch_version.h"

namespace cprof::tune {
namespace {

Parameter Categorical(std::string name, std::vector<Value> values) {
  Parameter p;
  p.name = std::move(name);
  p.type = ParamType::kCategorical;
  p.default_value = values.front();
  p.values = std::move(values);
  return p;
}

Parameter Ordinal(std::string name, std::vector<Value> values, Value def) {
  Parameter p;
  p.name = std::move(name);
  p.type = ParamType::kOrdinal;
  p.values = std::move(values);
  p.default_value = std::move(def);
  return p;
}

struct Knob {
  Parameter param;
  std::optional<Value> fix;  // the value that addresses the finding, when one is standard
};

// The knobs a category suggests; the first value (or the given default) is today's behaviour.
std::vector<Knob> KnobsFor(const std::string& category, const ReportedRun& run,
                           const std::map<std::string, double>& metrics) {
  if (category == "layout_conversion")
    return {{Categorical("memory_format", {"contiguous_format", "channels_last"}), Value{"channels_last"}}};
  if (category == "thread_oversubscription") {
    // The traced run's cores and pool size when the finding has them (its default is what the
    // run used, 8 threads on 2 cores: the space was [1, 2], default 2, and the 8 the program ran
    // with was never measured); else this machine's cores.
    auto metric = [&](const char* name) -> int64_t {
      auto it = metrics.find(name);
      return it != metrics.end() && it->second >= 1 ? static_cast<int64_t>(it->second) : 0;
    };
    const int64_t cores = metric("cpu_cores") ? metric("cpu_cores")
                                              : std::max<int64_t>(1, std::thread::hardware_concurrency());
    std::vector<int64_t> counts;
    for (int64_t n = 1; n < cores; n *= 2) counts.push_back(n);
    counts.push_back(cores);
    const int64_t traced = metric("torch_intra_op_threads");
    // The fix is the finding's own pool size, the one its suggestion and recommend-runtime name
    // (IntraOpThreadsFor: the cores the busy threads outside the pool leave; it was half the cores,
    // and runtime_adjustment.yaml then said the diagnosis's fix "measured worse" than the 2 the
    // suggestion named). When that is the pool the run already used, fewer threads instead.
    const int64_t start = traced ? traced : cores;
    auto busy = metrics.find("busy_threads_mean");
    const int64_t suggested =
        IntraOpThreadsFor(cores, busy == metrics.end() ? std::nullopt : std::optional<double>(busy->second),
                          start, run.device != "cpu" && !run.device.empty());
    for (int64_t n : {suggested, start})
      if (std::find(counts.begin(), counts.end(), n) == counts.end()) counts.push_back(n);
    std::sort(counts.begin(), counts.end());
    std::optional<Value> fix;
    if (suggested != start) {
      fix = Value{suggested};
    } else if (auto below = std::lower_bound(counts.begin(), counts.end(), start); below != counts.begin()) {
      fix = Value{*(below - 1)};
    }
    std::vector<Value> threads(counts.begin(), counts.end());
    return {{Ordinal("num_threads", threads, start), fix}};
  }
  if (category == "memory_churn" || category == "memory_fragmentation" || category == "env_config") {
    // PYTORCH_CUDA_ALLOC_CONF and its kin do nothing to a CPU run, whose churn is glibc's: its fix
    // is environment settings (MALLOC_MMAP_THRESHOLD_, MALLOC_TRIM_THRESHOLD_) that
    // recommend-runtime writes, not a knob to search.
    if (run.device == "cpu") return {};
    return {{Categorical("alloc_conf", {"", "expandable_segments:True", "max_split_size_mb:128",
                                        "garbage_collection_threshold:0.8"}),
             Value{"expandable_segments:True"}}};
  }
  if (category == "launch_overhead" || category == "fusion_candidate") {
    // Every trial of torch.compile fails before PyTorch 2 (the guidance's `notes` say so).
    if (!TorchHasCompile(run.torch_version)) return {};
    return {{Categorical("compile_mode", {"none", "default", "reduce-overhead", "max-autotune"}),
             Value{"default"}}};
  }
  if (category == "dataloader" || category == "host_gap") {
    std::vector<Knob> knobs = {
        {Ordinal("num_workers", {int64_t{0}, int64_t{1}, int64_t{2}, int64_t{4}, int64_t{8}}, int64_t{0}),
         Value{int64_t{2}}}};
    // Pinned memory speeds host-to-device copies: a CPU run has none, and the knob would only
    // spend trials.
    if (run.device != "cpu") knobs.push_back({Categorical("pin_memory", {int64_t{0}, int64_t{1}}), std::nullopt});
    return knobs;
  }
  if (category == "affinity_api")
    return {{Categorical("optimizer_impl", {"for_loop", "foreach", "fused"}), Value{"foreach"}}};
  if (category == "device_idle") {
    // A symptom: the device waits for the host, to feed it input or to launch its work. Both
    // remedies are searched, neither is a starting point (the specific rules, dataloader, host_gap
    // and launch_overhead, give one when they fire).
    std::vector<Knob> knobs = KnobsFor("dataloader", run, metrics);
    for (Knob& k : KnobsFor("launch_overhead", run, metrics)) knobs.push_back(std::move(k));
    for (Knob& k : knobs) k.fix.reset();
    return knobs;
  }
  return {};
}

}  // namespace

StatusOr<DiagnosisGuidance> GuidanceFor(const ReportedRun& run, const std::string& source, bool require_knobs) {
  struct Suggested {
    Parameter param;
    double confidence;
    std::string why;
  };
  std::vector<Suggested> knobs;
  std::vector<GuidanceFinding> findings;
  std::map<std::string, std::map<std::string, Value>> g_fixes;
  std::string compile_note;
  for (const ReportedFinding& f : run.findings) {
    if (f.confidence < kMinGuidanceConfidence) continue;
    const std::string& category = f.category;
    const std::string title = f.title.empty() ? category : f.title;
    findings.push_back({category, f.confidence, title});
    if ((category == "launch_overhead" || category == "fusion_candidate" || category == "device_idle") &&
        !TorchHasCompile(run.torch_version) && compile_note.empty())
      compile_note = fmt::format("compile_mode is not searched: torch.compile needs PyTorch 2.0 or later, and the "
                                 "traced run used PyTorch {}",
                                 run.torch_version);
    for (Knob& k : KnobsFor(category, run, f.metrics)) {
      if (k.fix && !g_fixes[category].count(k.param.name)) g_fixes[category][k.param.name] = *k.fix;
      Parameter& p = k.param;
      auto it = std::find_if(knobs.begin(), knobs.end(), [&](const Suggested& s) { return s.param.name == p.name; });
      const std::string why = category + ": " + title;
      if (it == knobs.end()) {
        knobs.push_back({std::move(p), f.confidence, why});
      } else if (f.confidence > it->confidence) {
        it->confidence = f.confidence;
        it->why = why;
      }
    }
  }
  if (knobs.empty() && require_knobs) {
    // Which findings there were: "no finding with confidence >= 0.3" read as if none were
    // confident, when a 0.80 device_idle (it had no knob then) was in the report.
    std::string found;
    for (const GuidanceFinding& f : findings)
      found += fmt::format("{}{} ({:.2f})", found.empty() ? "" : ", ", f.category, f.confidence);
    return Unavailable(
        "--from_diagnosis {}: {}; knobs come from layout_conversion, thread_oversubscription, memory_churn, "
        "memory_fragmentation and env_config (on a GPU or NPU; a CPU run's allocator settings are environment "
        "variables that `recommend-runtime` writes), launch_overhead, fusion_candidate, dataloader, host_gap, "
        "device_idle and affinity_api findings: give the space with --space",
        source,
        found.empty() ? fmt::format("no finding has confidence >= {}", kMinGuidanceConfidence)
                      : "no finding suggests a tunable knob (found: " + found + ")" +
                            (compile_note.empty() ? "" : "; " + compile_note));
  }
  DiagnosisGuidance g;
  if (!compile_note.empty()) g.notes.push_back(std::move(compile_note));
  g.findings = std::move(findings);
  g.fixes = std::move(g_fixes);
  for (Suggested& k : knobs) {
    g.start[k.param.name] = *k.param.default_value;
    g.why[k.param.name] = k.why;
    g.space.params.push_back(std::move(k.param));
  }
  return g;
}

std::vector<GuidedStart> GuidedStartsFor(const SearchSpace& space,
                                         const std::map<std::string, std::map<std::string, Value>>& fixes,
                                         const DiagnosisGuidance& guidance) {
  std::vector<GuidedStart> starts;
  for (const GuidanceFinding& f : guidance.findings) {
    auto it = fixes.find(f.category);
    if (it == fixes.end()) continue;
    GuidedStart g;
    for (const auto& [param, value] : it->second) {
      if (!space.IndexOf(param)) continue;
      g.values[param] = value;
      g.why[param] = f.category + ": " + f.title;
    }
    if (g.values.empty()) continue;
    for (const Parameter& p : space.params())
      if (!g.values.count(p.name) && p.default_value) g.values[p.name] = *p.default_value;
    const bool seen = std::any_of(starts.begin(), starts.end(), [&](const GuidedStart& s) {
      return std::equal(s.values.begin(), s.values.end(), g.values.begin(), g.values.end(),
                        [](const auto& a, const auto& b) { return a.first == b.first && ValuesEqual(a.second, b.second); });
    });
    if (!seen) starts.push_back(std::move(g));
  }
  return starts;
}

}  // namespace cprof::tune
