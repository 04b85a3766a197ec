// The optimization plan (`generate-plan`): a diagnosis turned into ordered steps a person can act
// on, each with the concrete change, the expected gain as a range, the risk, the steps it depends
// on and the `cann-profiler validate` command that will prove it. Pure: no I/O.
//
//   PlanOptions opt;
//   opt.priority = PlanPriority::kMemoryFirst;
//   opt.risk_tolerance = PlanRisk::kMedium;
//   Plan plan = BuildPlan(diagnosis, opt);
//   for (const PlanStep& s : plan.steps) show(s.number, s.title, s.gain_low_pct, s.validate_command);
//
// Gain range of a step, from its finding's numbers: the saving per step s = saving_ns / steps
// (the analysed span when the trace has no steps) over the step time T (steps.mean_ns, else the
// span). With confidence c: low = s * c / 2, high = s * (1 + c) / 2 — a certain finding (c = 1)
// gives [s/2, s] (the rule's saving is itself an estimate), a doubtful one a wide, low range.
// Stated as % of T and ms per step.
//
// Risk per category (plan.cc, RiskOf): an environment variable or runtime setting is low; a
// layout, memory format, data pipeline or API swap is medium; fusion, graph capture or a code
// rewrite is high. Steps above --risk_tolerance are left out of `steps` and listed in `deferred`.
//
// Order: steps whose category serves the priority come first (latency_first: tail_latency,
// host_device_sync, launch_overhead, ...; throughput_first: dataloader, device_idle, host_gap,
// exposed_communication, launch_overhead, fusion, dynamic_shape, ...; memory_first: memory_churn, memory_fragmentation, env_config), then
// within a tier by mid-range gain divided by the risk's cost (low 1, medium 1.5, high 2.5).
// Dependencies: where one change overlaps another (a fusion removes launches, an allocator setting
// removes fragmentation), the later step names the earlier one and their gains do not add.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diagnose/diagnose.h"

namespace cprof {

enum class PlanPriority { kLatencyFirst, kThroughputFirst, kMemoryFirst };
enum class PlanRisk { kLow, kMedium, kHigh };

std::string_view PlanPriorityId(PlanPriority p);  // "latency_first", ...
std::optional<PlanPriority> PlanPriorityFromId(std::string_view id);
std::string_view PlanRiskId(PlanRisk r);          // "low", "medium", "high"
std::optional<PlanRisk> PlanRiskFromId(std::string_view id);

// The risk of changing what a category points at, and why (one phrase).
PlanRisk RiskOf(Category c);
std::string_view RiskReason(Category c);

// The validate metrics that prove a change for a priority ("p99_latency,p50_latency,step_time").
std::string_view PriorityMetrics(PlanPriority p);

struct PlanOptions {
  PlanPriority priority = PlanPriority::kThroughputFirst;
  PlanRisk risk_tolerance = PlanRisk::kMedium;
  double min_confidence = 0.3;   // weaker findings are listed in `deferred`, not planned
  std::string diagnosis_path;    // cited in the text; the trace is the diagnosis' trace_path
};

struct PlanStep {
  int number = 0;                // 1-based, in plan order
  std::string finding_id;        // "F3": the finding's rank in the diagnosis
  Category category = Category::kLaunchOverhead;
  std::string title;             // the finding's title
  std::string device;            // "cpu" | "gpu" | "npu"
  double confidence = 0;
  bool serves_priority = false;  // in the priority's first tier
  std::vector<Suggestion> changes;  // the finding's suggestions, then the category's defaults for the device
  int64_t saving_per_step_ns = 0;
  int64_t step_ns = 0;
  int64_t gain_low_ns = 0;       // per step
  int64_t gain_high_ns = 0;
  double gain_low_pct = 0;       // of the step time
  double gain_high_pct = 0;
  std::string gain_method;       // the formula with this step's numbers
  PlanRisk risk = PlanRisk::kLow;
  std::string risk_reason;
  std::vector<int> depends_on;   // step numbers whose change overlaps this one
  std::string dependency_note;
  std::string validate_command;
};

struct DeferredFinding {
  std::string finding_id;
  Category category = Category::kLaunchOverhead;
  std::string title;
  std::string reason;            // "risk high above tolerance medium", "confidence 0.21 < 0.3"
};

struct Plan {
  PlanOptions options;
  std::string trace_path;
  std::string framework;         // "pytorch" (Kineto, torch_npu, the collector) or "unknown"
  std::string device;
  int64_t step_ns = 0;
  int64_t step_count = 0;
  std::vector<PlanStep> steps;
  std::vector<DeferredFinding> deferred;
};

Plan BuildPlan(const Diagnosis& d, const PlanOptions& options);

}  // namespace cprof
