// memory_churn, memory_fragmentation and gc on synthetic traces: growing cats backed by allocator
// events, program-level zero-fills, caching-allocator totals, and gc pauses; and the quiet cases.
#include <gtest/gtest.h>

#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rules_test_util.h"

namespace cprof {
namespace {

using testing_host::ExpectWellFormed;
using testing_host::HostTraceBuilder;
using testing_host::kMs;
using testing_host::RunRule;

TEST(MemoryChurnRuleTest, GrowingCatIsFoundFromItsAllocations) {
  HostTraceBuilder h;
  int64_t rows = 0;
  for (int i = 0; i < 12; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 10 * kMs);
    h.Op("aten::addmm", t0, 2 * kMs);
    rows += 64;
    // The cat's time grows with what it copies; its output is allocated inside it.
    const int64_t dur = std::min<int64_t>(7 * kMs, kMs + i * kMs / 2);
    h.Op("aten::cat", t0 + 2 * kMs, dur);
    h.Alloc(t0 + 2 * kMs + 1000, rows * 512, 0x1000 + i);
  }
  Trace t = h.Finish();
  std::vector<Finding> f = RunRule(*MakeMemoryChurnRule(), t);
  ASSERT_EQ(f.size(), 1u);
  ExpectWellFormed(f[0]);
  EXPECT_EQ(f[0].category, Category::kMemoryChurn);
  EXPECT_NE(f[0].title.find("torch.cat"), std::string::npos) << f[0].title;
  double growth_calls = -1;
  for (const FindingMetric& m : f[0].metrics)
    if (m.name == "cat_growth_calls") growth_calls = m.value;
  EXPECT_EQ(growth_calls, 11);  // every call after the first grew
  EXPECT_GT(f[0].saving_ns, 0);
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.specificity, 1.0);
  EXPECT_EQ(f[0].events.front().name, "aten::cat");
}

TEST(MemoryChurnRuleTest, ProgramZeroFillsCountButOperatorInternalAllocationsDoNot) {
  HostTraceBuilder h;
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 10 * kMs);
    h.Op("aten::zeros", t0, 4 * kMs);                 // called by the program
    h.Op("aten::addmm", t0 + 4 * kMs, 6 * kMs);
    h.Op("aten::empty", t0 + 4 * kMs + 1000, 3 * kMs);  // inside addmm: not churn
  }
  Trace t = h.Finish();
  std::vector<Finding> f = RunRule(*MakeMemoryChurnRule(), t);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(f[0].metrics[0].value, 0.4, 0.01);
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.specificity, 0.7);  // no allocator events
}

TEST(MemoryChurnRuleTest, AFewLongAllocationsAreNotChurn) {
  HostTraceBuilder h;
  for (int i = 0; i < 3; ++i) {
    h.Step(i, i * 10 * kMs, 10 * kMs);
    h.Op("aten::zeros", i * 10 * kMs, 8 * kMs);
  }
  EXPECT_TRUE(RunRule(*MakeMemoryChurnRule(), h.Finish()).empty());
}

TEST(MemoryChurnRuleTest, SteadyCatsAndFewAllocationsDoNotFire) {
  HostTraceBuilder h;
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 10 * kMs);
    h.Op("aten::addmm", t0, 8 * kMs);
    h.Op("aten::cat", t0 + 8 * kMs, kMs / 2);
    h.Alloc(t0 + 8 * kMs + 10, 4096, 0x1000 + i);
  }
  EXPECT_TRUE(RunRule(*MakeMemoryChurnRule(), h.Finish()).empty());
}

TEST(MemoryFragmentationRuleTest, ReservedFarAboveAllocatedFires) {
  HostTraceBuilder h;
  const int64_t mib = 1 << 20;
  for (int i = 0; i < 20; ++i) h.Alloc(i * kMs, 4 * mib, 0x100 + i, 0, (100 + i * 5) * mib, 1024 * mib);
  std::vector<Finding> f = RunRule(*MakeMemoryFragmentationRule(), h.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].category, Category::kMemoryFragmentation);
  EXPECT_EQ(f[0].saving_ns, 0);
  EXPECT_GT(f[0].confidence, 0.5);
  EXPECT_NEAR(f[0].metrics[0].value, 1.0 - 195.0 / 1024.0, 1e-6);
}

TEST(MemoryFragmentationRuleTest, TightReservationDoesNotFire) {
  HostTraceBuilder h;
  const int64_t mib = 1 << 20;
  for (int i = 0; i < 20; ++i) h.Alloc(i * kMs, mib, 0x100 + i, 0, 900 * mib, 1024 * mib);
  EXPECT_TRUE(RunRule(*MakeMemoryFragmentationRule(), h.Finish()).empty());
}

TEST(GcRuleTest, PausesInEveryStepFire) {
  HostTraceBuilder h;
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 10 * kMs);
    h.Op("aten::addmm", t0, 6 * kMs);
    h.Span("gc.collect gen2", "gc", t0 + 6 * kMs, 4 * kMs);
  }
  std::vector<Finding> f = RunRule(*MakeGcRule(), h.Finish());
  ASSERT_EQ(f.size(), 1u);
  ExpectWellFormed(f[0]);
  EXPECT_EQ(f[0].category, Category::kGc);
  EXPECT_NEAR(f[0].metrics[0].value, 0.4, 0.01);
  EXPECT_EQ(f[0].saving_ns, static_cast<int64_t>(0.9 * 40 * kMs));  // all full collections
  EXPECT_GT(f[0].confidence, 0.8);
}

TEST(GcRuleTest, RareShortPausesDoNotFire) {
  HostTraceBuilder h;
  for (int i = 0; i < 10; ++i) {
    h.Step(i, i * 10 * kMs, 10 * kMs);
    h.Op("aten::addmm", i * 10 * kMs, 9 * kMs);
  }
  h.Span("gc.collect gen0", "gc", 95 * kMs, kMs / 5);
  EXPECT_TRUE(RunRule(*MakeGcRule(), h.Finish()).empty());
}

}  // namespace
}  // namespace cprof
