// The plan: order by priority and risk, gain ranges from the findings' numbers, risk filtering,
// dependencies, the validate command.
#include "analysis/diagnose/plan.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

Finding MakeFinding(Category c, double confidence, int64_t saving_ns, std::vector<Suggestion> s = {}) {
  Finding f;
  f.category = c;
  f.title = std::string(CategoryId(c)) + " finding";
  f.device = "gpu";
  f.confidence = confidence;
  f.saving_ns = saving_ns;
  f.cost_total_ns = saving_ns * 2;
  f.suggestions = std::move(s);
  return f;
}

Diagnosis MakeDiagnosis() {
  Diagnosis d;
  d.device = DeviceKind::kGpu;
  d.trace_path = "runs/base.pt.trace.json.gz";
  d.source_format = "kineto";
  d.step_count = 10;
  d.step_mean_ns = 100'000'000;  // 100 ms
  d.span_ns = 1'000'000'000;
  // Ranked as diagnose would: by saving x confidence.
  d.findings.push_back(MakeFinding(Category::kDeviceIdle, 0.8, 300'000'000));          // 30 ms/step
  d.findings.push_back(MakeFinding(Category::kFusionCandidate, 0.9, 200'000'000));     // 20 ms/step, high risk
  d.findings.push_back(MakeFinding(Category::kLaunchOverhead, 0.6, 150'000'000));      // 15 ms/step, high risk
  d.findings.push_back(MakeFinding(Category::kMemoryFragmentation, 0.7, 50'000'000));  // 5 ms/step, low risk
  d.findings.push_back(MakeFinding(Category::kMemoryChurn, 0.5, 40'000'000));          // 4 ms/step, medium
  d.findings.push_back(MakeFinding(Category::kTailLatency, 0.2, 100'000'000));         // too weak
  return d;
}

std::vector<Category> Order(const Plan& p) {
  std::vector<Category> v;
  for (const PlanStep& s : p.steps) v.push_back(s.category);
  return v;
}

TEST(PlanTest, GainRangeIsDerivedFromSavingConfidenceAndStepTime) {
  PlanOptions o;
  o.risk_tolerance = PlanRisk::kHigh;
  Plan p = BuildPlan(MakeDiagnosis(), o);
  const PlanStep* idle = nullptr;
  for (const PlanStep& s : p.steps)
    if (s.category == Category::kDeviceIdle) idle = &s;
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(idle->saving_per_step_ns, 30'000'000);
  EXPECT_EQ(idle->gain_low_ns, 12'000'000);   // 30 ms x 0.8 / 2
  EXPECT_EQ(idle->gain_high_ns, 27'000'000);  // 30 ms x 1.8 / 2
  EXPECT_NEAR(idle->gain_low_pct, 12.0, 1e-9);
  EXPECT_NEAR(idle->gain_high_pct, 27.0, 1e-9);
  EXPECT_NE(idle->gain_method.find("0.80"), std::string::npos) << idle->gain_method;
}

TEST(PlanTest, MemoryFirstPutsMemoryCategoriesFirst) {
  PlanOptions o;
  o.priority = PlanPriority::kMemoryFirst;
  o.risk_tolerance = PlanRisk::kHigh;
  Plan p = BuildPlan(MakeDiagnosis(), o);
  ASSERT_GE(p.steps.size(), 2u);
  // Fragmentation (low risk, 3 ms/step mid) before churn (medium, 2 ms mid / 1.5).
  EXPECT_EQ(p.steps[0].category, Category::kMemoryFragmentation);
  EXPECT_EQ(p.steps[1].category, Category::kMemoryChurn);
  EXPECT_TRUE(p.steps[0].serves_priority);
  EXPECT_NE(p.steps[0].validate_command.find("--metrics mem_peak"), std::string::npos);
  // Churn overlaps fragmentation: it depends on step 1.
  EXPECT_EQ(p.steps[1].depends_on, std::vector<int>{1});
}

TEST(PlanTest, ThroughputFirstOrdersByGainOverRisk) {
  PlanOptions o;
  o.priority = PlanPriority::kThroughputFirst;
  o.risk_tolerance = PlanRisk::kHigh;
  Plan p = BuildPlan(MakeDiagnosis(), o);
  // Tier: device_idle (19.5 ms mid / 1.5), fusion (14 ms / 2.5), launch (8.25 ms / 2.5); then the rest.
  std::vector<Category> want = {Category::kDeviceIdle, Category::kFusionCandidate, Category::kLaunchOverhead,
                                Category::kMemoryFragmentation, Category::kMemoryChurn};
  EXPECT_EQ(Order(p), want);
  // Fusion removes launches: launch_overhead depends on the fusion step.
  EXPECT_EQ(p.steps[2].depends_on, std::vector<int>{2});
  ASSERT_EQ(p.deferred.size(), 1u);  // tail_latency, confidence 0.2
  EXPECT_EQ(p.deferred[0].category, Category::kTailLatency);
}

TEST(PlanTest, RiskToleranceFiltersSteps) {
  PlanOptions o;
  o.risk_tolerance = PlanRisk::kLow;
  Plan p = BuildPlan(MakeDiagnosis(), o);
  ASSERT_EQ(p.steps.size(), 1u);
  EXPECT_EQ(p.steps[0].category, Category::kMemoryFragmentation);
  EXPECT_EQ(p.steps[0].risk, PlanRisk::kLow);
  // Everything else is deferred, with the reason.
  EXPECT_EQ(p.deferred.size(), 5u);
  bool risk_reason = false;
  for (const DeferredFinding& f : p.deferred) risk_reason |= f.reason.find("risk high above") != std::string::npos;
  EXPECT_TRUE(risk_reason);
  o.risk_tolerance = PlanRisk::kMedium;
  EXPECT_EQ(BuildPlan(MakeDiagnosis(), o).steps.size(), 3u);  // + device_idle, memory_churn
}

TEST(PlanTest, ValidateCommandNamesTheTraceAndPriorityMetrics) {
  PlanOptions o;
  o.priority = PlanPriority::kLatencyFirst;
  o.risk_tolerance = PlanRisk::kHigh;
  Plan p = BuildPlan(MakeDiagnosis(), o);
  ASSERT_FALSE(p.steps.empty());
  EXPECT_EQ(p.steps[0].category, Category::kLaunchOverhead);  // the only latency-tier finding planned
  EXPECT_EQ(p.steps[0].validate_command,
            "cann-profiler validate --before runs/base.pt.trace.json.gz --after runs/base.after_step1.pt.trace.json.gz "
            "--metrics p99_latency,p50_latency,step_time --min_effect 2% --fail_on_regression --output "
            "validate_step1.md");
}

TEST(PlanTest, ThinSuggestionsAreExtendedForTheDevice) {
  Diagnosis d = MakeDiagnosis();
  d.findings = {MakeFinding(Category::kEnvConfig, 0.9, 100'000'000, {{"Settings are off.", "", ""}})};
  d.findings[0].device = "npu";
  Plan p = BuildPlan(d, PlanOptions{});
  ASSERT_EQ(p.steps.size(), 1u);
  ASSERT_GE(p.steps[0].changes.size(), 2u);
  EXPECT_EQ(p.steps[0].changes[0].text, "Settings are off.");
  EXPECT_NE(p.steps[0].changes[1].snippet.find("PYTORCH_NPU_ALLOC_CONF"), std::string::npos);
  // A finding with a snippet keeps only its own changes.
  d.findings = {MakeFinding(Category::kEnvConfig, 0.9, 100'000'000, {{"Set it.", "env", "export X=1"}})};
  EXPECT_EQ(BuildPlan(d, PlanOptions{}).steps[0].changes.size(), 1u);
}

// A plan for a PyTorch 1.13 run says that its torch.compile snippet needs PyTorch 2; for a 2.x run,
// or a trace that does not say, the suggestion is unchanged.
TEST(PlanTest, TorchCompileSnippetNamesTheVersionItNeeds) {
  Diagnosis d = MakeDiagnosis();
  d.findings = {MakeFinding(Category::kLaunchOverhead, 0.9, 100'000'000, {{"Many tiny kernels.", "", ""}})};
  PlanOptions options;
  options.risk_tolerance = PlanRisk::kHigh;  // a compiler is a high-risk change
  auto compile_text = [&] {
    const Plan plan = BuildPlan(d, options);
    for (const Suggestion& s : plan.steps.at(0).changes)
      if (s.snippet.find("torch.compile(") != std::string::npos) return s.text;
    return std::string("(no torch.compile snippet)");
  };
  const std::string unknown = compile_text();
  ASSERT_NE(unknown, "(no torch.compile snippet)");
  EXPECT_EQ(unknown.find("needs PyTorch 2"), std::string::npos) << unknown;
  d.torch_version = "2.6.0+cu124";
  EXPECT_EQ(compile_text(), unknown);
  d.torch_version = "1.13.1";
  const std::string old = compile_text();
  EXPECT_NE(old.find("torch.compile needs PyTorch 2.0 or later; the trace ran PyTorch 1.13.1"), std::string::npos)
      << old;
}

TEST(PlanTest, IdsRoundTrip) {
  for (auto p : {PlanPriority::kLatencyFirst, PlanPriority::kThroughputFirst, PlanPriority::kMemoryFirst})
    EXPECT_EQ(PlanPriorityFromId(PlanPriorityId(p)), p);
  EXPECT_FALSE(PlanPriorityFromId("fast").has_value());
  EXPECT_EQ(PlanRiskFromId("high"), PlanRisk::kHigh);
  EXPECT_FALSE(PlanRiskFromId("extreme").has_value());
}

}  // namespace
}  // namespace cprof
