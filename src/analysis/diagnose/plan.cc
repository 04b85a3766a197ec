// The optimization plan (plan.h): gain ranges, risk, order, dependencies, validate commands.
#include "analysis/diagnose/plan.h"

#include <algorithm>
#include <array>
#include <utility>

#include <fmt/format.h>

#include "analysis/diagnose/category_changes.h"
#include "base/shell_quote.h"

namespace cprof {
namespace {

using C = Category;

// The categories that serve a priority, most direct first.
std::vector<Category> PriorityTier(PlanPriority p) {
  switch (p) {
    case PlanPriority::kLatencyFirst:
      return {C::kTailLatency, C::kHostDeviceSync, C::kLaunchOverhead, C::kDynamicShape, C::kGc,
              C::kThreadOversubscription, C::kAicpuOps, C::kSlowRank};
    case PlanPriority::kThroughputFirst:
      return {C::kDataloader,      C::kDeviceIdle,     C::kHostGap,          C::kExposedCommunication,
              C::kLaunchOverhead,  C::kFusionCandidate, C::kAffinityApi,     C::kLayoutConversion,
              C::kDynamicShape,    C::kAicpuOps,        C::kHostDeviceSync,  C::kCommAlignment,
              C::kSlowRank};
    case PlanPriority::kMemoryFirst:
      return {C::kMemoryChurn, C::kMemoryFragmentation, C::kEnvConfig};
  }
  return {};
}

// Pairs whose changes overlap: fixing one removes part of what the other costs.
constexpr std::array<std::pair<Category, Category>, 12> kOverlaps = {{
    {C::kFusionCandidate, C::kLaunchOverhead},
    {C::kAffinityApi, C::kFusionCandidate},
    {C::kAffinityApi, C::kLaunchOverhead},
    {C::kDataloader, C::kHostGap},
    {C::kDataloader, C::kDeviceIdle},
    {C::kHostGap, C::kDeviceIdle},
    {C::kHostDeviceSync, C::kDeviceIdle},
    {C::kEnvConfig, C::kMemoryFragmentation},
    {C::kEnvConfig, C::kLaunchOverhead},
    {C::kEnvConfig, C::kThreadOversubscription},
    {C::kMemoryFragmentation, C::kMemoryChurn},
    {C::kCommAlignment, C::kExposedCommunication},
}};

bool Overlap(Category a, Category b) {
  for (const auto& [x, y] : kOverlaps)
    if ((x == a && y == b) || (x == b && y == a)) return true;
  return false;
}

double RiskCost(PlanRisk r) { return r == PlanRisk::kLow ? 1.0 : r == PlanRisk::kMedium ? 1.5 : 2.5; }

// "run.json.gz" -> "run.after_step2.json.gz"; a folder -> "run.after_step2".
std::string AfterTracePath(const std::string& before, int step) {
  std::string path = before.empty() ? "before.json.gz" : before;
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  const size_t slash = path.find_last_of('/');
  const size_t name_at = slash == std::string::npos ? 0 : slash + 1;
  size_t dot = path.find('.', name_at);
  if (dot == name_at) dot = path.find('.', name_at + 1);  // ".hidden"
  const std::string tag = fmt::format(".after_step{}", step);
  if (dot == std::string::npos) return path + tag;
  return path.substr(0, dot) + tag + path.substr(dot);
}

std::string FrameworkOf(const std::string& source_format) {
  for (const char* k : {"kineto", "torch", "pytorch", "cprof", "perfetto", "chrome"})
    if (source_format.find(k) != std::string::npos) return "pytorch";
  return source_format.empty() ? "pytorch" : "unknown";
}

}  // namespace

std::string_view PlanPriorityId(PlanPriority p) {
  switch (p) {
    case PlanPriority::kLatencyFirst: return "latency_first";
    case PlanPriority::kThroughputFirst: return "throughput_first";
    case PlanPriority::kMemoryFirst: return "memory_first";
  }
  return "throughput_first";
}

std::optional<PlanPriority> PlanPriorityFromId(std::string_view id) {
  for (PlanPriority p : {PlanPriority::kLatencyFirst, PlanPriority::kThroughputFirst, PlanPriority::kMemoryFirst})
    if (PlanPriorityId(p) == id) return p;
  return std::nullopt;
}

std::string_view PlanRiskId(PlanRisk r) {
  switch (r) {
    case PlanRisk::kLow: return "low";
    case PlanRisk::kMedium: return "medium";
    case PlanRisk::kHigh: return "high";
  }
  return "medium";
}

std::optional<PlanRisk> PlanRiskFromId(std::string_view id) {
  for (PlanRisk r : {PlanRisk::kLow, PlanRisk::kMedium, PlanRisk::kHigh})
    if (PlanRiskId(r) == id) return r;
  return std::nullopt;
}

PlanRisk RiskOf(Category c) {
  switch (c) {
    case C::kEnvConfig:
    case C::kThreadOversubscription:
    case C::kMemoryFragmentation:
    case C::kGc:
      return PlanRisk::kLow;
    case C::kLaunchOverhead:
    case C::kFusionCandidate:
    case C::kTailLatency:
    case C::kSlowRank:
      return PlanRisk::kHigh;
    default:
      return PlanRisk::kMedium;
  }
}

std::string_view RiskReason(Category c) {
  switch (c) {
    case C::kEnvConfig:
    case C::kThreadOversubscription:
    case C::kMemoryFragmentation:
      return "an environment variable or runtime setting: no code change, reverted by unsetting it";
    case C::kGc: return "two lines at start-up; objects created later are still collected";
    case C::kLaunchOverhead:
    case C::kFusionCandidate:
      return "fusion or graph capture changes how the model executes: numerics, dynamic control flow and "
             "compile time need checking";
    case C::kTailLatency: return "reworking the slow path's operators is a code rewrite";
    case C::kSlowRank: return "rebalancing data or hosts across ranks touches the whole job";
    case C::kLayoutConversion: return "a memory format change touches every layer it flows through";
    case C::kMemoryChurn: return "preallocating buffers changes tensor lifetimes";
    case C::kDataloader:
    case C::kHostGap:
    case C::kDeviceIdle:
      return "the data pipeline changes (workers, pinning, prefetch): more host memory and processes";
    case C::kHostDeviceSync: return "removing host reads changes when values are observed (logging, early stop)";
    case C::kExposedCommunication:
    case C::kCommAlignment:
      return "bucket sizes and overlap change the communication schedule";
    case C::kAffinityApi: return "an API swap: the fused implementation must match the original numerics";
    case C::kAicpuOps: return "a dtype change or operator replacement must keep results the same";
    case C::kDynamicShape: return "padding to fixed shapes changes the inputs and costs some wasted compute";
  }
  return "a code change";
}

std::string_view PriorityMetrics(PlanPriority p) {
  switch (p) {
    case PlanPriority::kLatencyFirst: return "p99_latency,p50_latency,step_time";
    case PlanPriority::kThroughputFirst: return "throughput,step_time";
    case PlanPriority::kMemoryFirst: return "mem_peak,step_time";
  }
  return "step_time";
}

Plan BuildPlan(const Diagnosis& d, const PlanOptions& options) {
  Plan plan;
  plan.options = options;
  plan.trace_path = d.trace_path;
  plan.framework = FrameworkOf(d.source_format);
  plan.device = std::string(DeviceKindId(d.device));
  plan.step_count = d.step_count;
  const int64_t steps = d.step_count > 0 ? d.step_count : 1;
  plan.step_ns = d.step_count > 0 && d.step_mean_ns > 0 ? d.step_mean_ns : std::max<int64_t>(1, d.span_ns);
  const std::vector<Category> tier = PriorityTier(options.priority);

  struct Candidate {
    PlanStep step;
    int tier_rank;
    double key;
  };
  std::vector<Candidate> candidates;
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    const std::string id = fmt::format("F{}", i + 1);
    const PlanRisk risk = RiskOf(f.category);
    if (f.confidence < options.min_confidence) {
      plan.deferred.push_back({id, f.category, f.title,
                               fmt::format("confidence {:.2f} below {:.2f}", f.confidence, options.min_confidence)});
      continue;
    }
    if (risk > options.risk_tolerance) {
      plan.deferred.push_back({id, f.category, f.title,
                               fmt::format("risk {} above the tolerance {}", PlanRiskId(risk),
                                           PlanRiskId(options.risk_tolerance))});
      continue;
    }
    PlanStep s;
    s.finding_id = id;
    s.category = f.category;
    s.title = f.title;
    s.device = f.device.empty() ? plan.device : f.device;
    s.confidence = f.confidence;
    s.risk = risk;
    s.risk_reason = std::string(RiskReason(f.category));
    // The finding's own changes first; the category's standard change when none has a snippet.
    s.changes = f.suggestions;
    const bool has_snippet =
        std::any_of(s.changes.begin(), s.changes.end(), [](const Suggestion& g) { return !g.snippet.empty(); });
    if (!has_snippet)
      for (Suggestion& g : DefaultChanges(f.category, s.device)) s.changes.push_back(std::move(g));
    NoteTorchCompileNeeds(s.changes, d.torch_version);
    s.step_ns = plan.step_ns;
    s.saving_per_step_ns = std::min(f.saving_ns / steps, plan.step_ns);
    const double c = std::clamp(f.confidence, 0.0, 1.0);
    s.gain_low_ns = static_cast<int64_t>(static_cast<double>(s.saving_per_step_ns) * c / 2);
    s.gain_high_ns = static_cast<int64_t>(static_cast<double>(s.saving_per_step_ns) * (1 + c) / 2);
    s.gain_low_pct = 100.0 * static_cast<double>(s.gain_low_ns) / static_cast<double>(plan.step_ns);
    s.gain_high_pct = 100.0 * static_cast<double>(s.gain_high_ns) / static_cast<double>(plan.step_ns);
    s.gain_method = fmt::format(
        "saving {:.3f} ms/step (saving_ns {} / {} step{}) x [c/2, (1+c)/2] with confidence c = {:.2f}, over the "
        "{:.3f} ms step",
        static_cast<double>(s.saving_per_step_ns) / 1e6, f.saving_ns, steps, steps == 1 ? "" : "s", c,
        static_cast<double>(plan.step_ns) / 1e6);
    const auto t = std::find(tier.begin(), tier.end(), f.category);
    s.serves_priority = t != tier.end();
    const int tier_rank = s.serves_priority ? static_cast<int>(t - tier.begin()) : static_cast<int>(tier.size());
    const double mid = static_cast<double>(s.gain_low_ns + s.gain_high_ns) / 2;
    // Within the priority's tier its own order decides only between equal gains; the gain/risk
    // key decides first, so a large latency win is not queued behind a tiny one.
    candidates.push_back({std::move(s), tier_rank, mid / RiskCost(risk)});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [&](const Candidate& a, const Candidate& b) {
    if (a.step.serves_priority != b.step.serves_priority) return a.step.serves_priority;
    if (a.key != b.key) return a.key > b.key;
    return a.tier_rank < b.tier_rank;
  });
  const std::string metrics(PriorityMetrics(options.priority));
  for (Candidate& cand : candidates) {
    PlanStep& s = cand.step;
    s.number = static_cast<int>(plan.steps.size()) + 1;
    std::vector<std::string> names;
    for (const PlanStep& earlier : plan.steps)
      if (Overlap(earlier.category, s.category)) {
        s.depends_on.push_back(earlier.number);
        names.push_back(fmt::format("step {} ({})", earlier.number, CategoryId(earlier.category)));
      }
    if (!names.empty())
      s.dependency_note = fmt::format(
          "apply after {}: that change removes part of this cost, so measure this one on top of it; the gains do "
          "not add",
          fmt::join(names, ", "));
    const std::string before = plan.trace_path.empty() ? "before.json.gz" : plan.trace_path;
    s.validate_command = fmt::format(
        "cann-profiler validate --before {} --after {} --metrics {} --min_effect 2% --fail_on_regression "
        "--output validate_step{}.md",
        ShellQuote(before), ShellQuote(AfterTracePath(before, s.number)), metrics, s.number);
    plan.steps.push_back(std::move(s));
  }
  return plan;
}

}  // namespace cprof
