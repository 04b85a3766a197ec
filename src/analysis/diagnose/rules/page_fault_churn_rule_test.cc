// page_fault_churn on synthetic host traces: per-process minor-fault rates from /proc and the
// measured cost of one fault. Faults that cost more than 5% of step time fire it, with the cost
// read off the rates; few faults, a kept heap, or faults outside the steps do not.
#include <gtest/gtest.h>

#include <string>

#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rules_test_util.h"

namespace cprof {
namespace {

using testing_host::ExpectWellFormed;
using testing_host::HostTraceBuilder;
using testing_host::kMs;
using testing_host::Metric;
using testing_host::RunRule;

// 10 steps of 100 ms from t = 1 s; a /proc pass every 100 ms from t = 0 reporting `rate` faults/s
// (`rate_outside` before the first step), with the fault cost `fault_ns` (none when < 0) and a
// resident set that grows by `rss_growth` bytes a second from 200 MB.
Trace Workload(double rate, int64_t fault_ns, double rate_outside = 0, double rss_growth = 0) {
  HostTraceBuilder h;
  for (int s = 0; s < 10; ++s) h.Step(s, 1000 * kMs + s * 100 * kMs, 100 * kMs);
  TraceBuilder& b = h.builder();
  TrackId t = b.ChildTrack(b.ProcessTrack(1), TrackKind::kCounter, b.Intern("page_faults.minor.per_s"));
  TrackId rss = b.ChildTrack(b.ProcessTrack(1), TrackKind::kCounter, b.Intern("rss.bytes"));
  for (int k = 0; k <= 21; ++k) {
    b.AddCounter(t, k * 100 * kMs, k <= 10 ? rate_outside : rate);
    b.AddCounter(rss, k * 100 * kMs, 200e6 + rss_growth * k * 0.1);
  }
  if (fault_ns >= 0) h.MetaInt("page_fault_ns", fault_ns);
  return h.Finish();
}

TEST(PageFaultChurnRuleTest, FiresWithTheMeasuredFaultCost) {
  // 20,000 faults/s at 10 us each: 20% of every step.
  std::vector<Finding> f = RunRule(*MakePageFaultChurnRule(), Workload(20'000, 10'000));
  ASSERT_EQ(f.size(), 1u);
  ExpectWellFormed(f[0]);
  EXPECT_EQ(f[0].category, Category::kMemoryChurn);
  EXPECT_NEAR(Metric(f[0], "minor_faults_per_step"), 2000, 1);
  EXPECT_NEAR(Metric(f[0], "page_fault_share"), 0.20, 1e-6);
  EXPECT_NEAR(static_cast<double>(f[0].cost_total_ns), 200.0 * kMs, 0.01 * kMs);
  EXPECT_NEAR(static_cast<double>(f[0].saving_ns), 180.0 * kMs, 0.01 * kMs);
  EXPECT_NEAR(f[0].confidence_terms.magnitude, 0.75, 1e-6);  // 1 - 0.05 / 0.20
  EXPECT_NEAR(f[0].confidence_terms.consistency, 1.0, 1e-9);
  EXPECT_NEAR(f[0].confidence_terms.specificity, 1.0, 1e-9);
  EXPECT_NE(f[0].title.find("20% of step time"), std::string::npos) << f[0].title;
  ASSERT_FALSE(f[0].events.empty());
  EXPECT_EQ(f[0].events[0].name.rfind("ProfilerStep#", 0), 0u);
  // The allocator fix names both thresholds: one alone makes it worse.
  ASSERT_FALSE(f[0].suggestions.empty());
  EXPECT_NE(f[0].suggestions[0].snippet.find("MALLOC_MMAP_THRESHOLD_"), std::string::npos);
  EXPECT_NE(f[0].suggestions[0].snippet.find("MALLOC_TRIM_THRESHOLD_"), std::string::npos);
}

TEST(PageFaultChurnRuleTest, AssumedFaultCostLowersSpecificity) {
  // No measured cost: 2 us assumed, 50,000 faults/s -> 10% of the step.
  std::vector<Finding> f = RunRule(*MakePageFaultChurnRule(), Workload(50'000, -1));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(Metric(f[0], "page_fault_share"), 0.10, 1e-6);
  EXPECT_NEAR(f[0].confidence_terms.specificity, 0.7, 1e-9);
  EXPECT_NE(f[0].saving_method.find("assumed"), std::string::npos);
}

TEST(PageFaultChurnRuleTest, FaultsThatGrowTheResidentSetAreNotChurn) {
  // 20,000 faults/s while the resident set grows by as many pages (a cache warming up): silent.
  EXPECT_TRUE(RunRule(*MakePageFaultChurnRule(), Workload(20'000, 10'000, 0, 20'000 * 4096.0)).empty());
  // Growing by half of them: the other half are re-faults, 10% of the step.
  std::vector<Finding> f = RunRule(*MakePageFaultChurnRule(), Workload(20'000, 10'000, 0, 10'000 * 4096.0));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(Metric(f[0], "refaults"), 10'000, 10);
  EXPECT_NEAR(Metric(f[0], "page_fault_share"), 0.10, 1e-3);
}

TEST(PageFaultChurnRuleTest, SilentBelowTheThresholdAndOutsideSteps) {
  // 2% of step time.
  EXPECT_TRUE(RunRule(*MakePageFaultChurnRule(), Workload(2'000, 10'000)).empty());
  // Under 64 faults a step, whatever they cost.
  EXPECT_TRUE(RunRule(*MakePageFaultChurnRule(), Workload(500, 1'000'000)).empty());
  // Start-up faults before the first step do not count against the steps.
  EXPECT_TRUE(RunRule(*MakePageFaultChurnRule(), Workload(0, 10'000, 500'000)).empty());
  // No counter at all (a trace from another profiler).
  HostTraceBuilder h;
  h.Step(0, 0, 100 * kMs);
  EXPECT_TRUE(RunRule(*MakePageFaultChurnRule(), h.Finish()).empty());
}

}  // namespace
}  // namespace cprof
