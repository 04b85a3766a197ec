// thread_oversubscription and env_config_cpu on synthetic collector traces: per-thread CPU
// counters, core counts, pool sizes and the environment; and the quiet cases.
#include <gtest/gtest.h>

#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rules_test_util.h"

namespace cprof {
namespace {

using testing_host::ExpectWellFormed;
using testing_host::HostTraceBuilder;
using testing_host::kMs;
using testing_host::RunRule;

TEST(ThreadOversubscriptionRuleTest, EightBusyThreadsOnTwoCoresFire) {
  HostTraceBuilder h;
  h.MetaInt("cpu_cores", 2);
  h.Meta("torch_intra_op_threads", "8");
  for (int i = 0; i < 10; ++i) h.Step(i, i * 100 * kMs, 100 * kMs);
  for (int pass = 0; pass < 10; ++pass)
    for (int tid = 1; tid <= 8; ++tid) h.ThreadCpu(tid, pass * 100 * kMs, 25.0);
  std::vector<Finding> f = RunRule(*MakeThreadOversubscriptionRule(), h.Finish());
  ASSERT_EQ(f.size(), 1u);
  ExpectWellFormed(f[0]);
  EXPECT_EQ(f[0].category, Category::kThreadOversubscription);
  EXPECT_DOUBLE_EQ(f[0].metrics[0].value, 8.0);
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.magnitude, 0.75);
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.specificity, 1.0);
  // Each thread runs 2/8 of the time: 75% of the step lost, half of it saved.
  EXPECT_EQ(f[0].cost_total_ns, 750 * kMs);
  EXPECT_EQ(f[0].saving_ns, 375 * kMs);
}

TEST(ThreadOversubscriptionRuleTest, OneBusyThreadDoesNot) {
  HostTraceBuilder h;
  h.MetaInt("cpu_cores", 2);
  for (int pass = 0; pass < 10; ++pass) {
    h.ThreadCpu(1, pass * 100 * kMs, 99.0);
    h.ThreadCpu(2, pass * 100 * kMs, 3.0);
  }
  EXPECT_TRUE(RunRule(*MakeThreadOversubscriptionRule(), h.Finish()).empty());
}

TEST(ThreadOversubscriptionRuleTest, NoCoreCountNoFinding) {
  HostTraceBuilder h;
  for (int pass = 0; pass < 10; ++pass)
    for (int tid = 1; tid <= 8; ++tid) h.ThreadCpu(tid, pass * 100 * kMs, 25.0);
  EXPECT_TRUE(RunRule(*MakeThreadOversubscriptionRule(), h.Finish()).empty());
}

TEST(EnvConfigCpuRuleTest, PoolAboveCoresFires) {
  HostTraceBuilder h;
  h.MetaInt("cpu_cores", 4);
  h.Meta("environment", R"({"HOME":"/root","OMP_NUM_THREADS":"16","PATH":"/usr/bin"})");
  h.Step(0, 0, 10 * kMs);
  std::vector<Finding> f = RunRule(*MakeEnvConfigCpuRule(), h.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].category, Category::kEnvConfig);
  EXPECT_NE(f[0].title.find("OMP_NUM_THREADS=16"), std::string::npos) << f[0].title;
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.magnitude, 0.75);
  EXPECT_EQ(f[0].suggestions[0].snippet, "OMP_NUM_THREADS=4 MKL_NUM_THREADS=4");
}

TEST(EnvConfigCpuRuleTest, HighAllocationRateWithoutACachingAllocatorFires) {
  HostTraceBuilder h;
  h.MetaInt("cpu_cores", 4);
  h.Meta("environment", R"({"OMP_NUM_THREADS":"4"})");
  for (int i = 0; i < 10; ++i) h.Step(i, i * 10 * kMs, 10 * kMs);
  // 50,000 allocations in 100 ms of steps: at 100 ns each, 5% of the step time.
  for (int i = 0; i < 50000; ++i) h.Alloc(i * 2'000, 256, 0x1000 + 16 * i);
  std::vector<Finding> f = RunRule(*MakeEnvConfigCpuRule(), h.Finish());
  ASSERT_EQ(f.size(), 1u);
  ExpectWellFormed(f[0]);
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.specificity, 0.5);
  EXPECT_NEAR(f[0].confidence_terms.magnitude, 0.6, 0.01);
  EXPECT_EQ(f[0].saving_ns, 50000 * 50);
}

TEST(EnvConfigCpuRuleTest, AllocationsThatCostLittleTimeDoNotFire) {
  HostTraceBuilder h;
  h.MetaInt("cpu_cores", 4);
  h.Meta("environment", R"({"OMP_NUM_THREADS":"4"})");
  for (int i = 0; i < 10; ++i) h.Step(i, i * 10 * kMs, 10 * kMs);
  for (int i = 0; i < 10000; ++i) h.Alloc(i * 10'000, 256, 0x1000 + 16 * i);  // 1 ms of 100 ms
  EXPECT_TRUE(RunRule(*MakeEnvConfigCpuRule(), h.Finish()).empty());
}

TEST(EnvConfigCpuRuleTest, SaneSettingsOrNoEnvironmentYieldNothing) {
  HostTraceBuilder a;
  a.MetaInt("cpu_cores", 4);
  a.Meta("environment", R"({"OMP_NUM_THREADS":"4","LD_PRELOAD":"/usr/lib/libjemalloc.so.2"})");
  for (int i = 0; i < 10000; ++i) a.Alloc(i * 10'000, 256, 0x1000 + 16 * i);
  EXPECT_TRUE(RunRule(*MakeEnvConfigCpuRule(), a.Finish()).empty());
  HostTraceBuilder b;
  b.MetaInt("cpu_cores", 4);
  EXPECT_TRUE(RunRule(*MakeEnvConfigCpuRule(), b.Finish()).empty());
}

}  // namespace
}  // namespace cprof
