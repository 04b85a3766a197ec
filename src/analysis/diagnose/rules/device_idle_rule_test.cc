// device_idle on synthetic traces: a device idle most of each step, and a busy one.
#include "analysis/diagnose/rules/rule_test_util.h"

namespace cprof {
namespace {

using testing::RunRule;
using testing::SyntheticTrace;

TEST(DeviceIdleRuleTest, IdleStepsFireWithTheLargestGapsAsEvidence) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Op(t0, 600'000, "DataLoader.__next__");   // the host is busy elsewhere
    s.Kernel(t0 + 600'000, 300'000, "gemm");
    s.Op(t0 + 600'000, 10'000, "aten::mm");
  }
  std::vector<Finding> f = RunRule(*MakeDeviceIdleRule(), s.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].category, Category::kDeviceIdle);
  EXPECT_NEAR(f[0].metrics[1].value, 0.7, 1e-9);  // 700 of 1000 us idle
  EXPECT_EQ(f[0].metrics[5].value, 600'000);       // longest gap
  EXPECT_EQ(f[0].events[0].name, "gemm");          // the work that ends the longest gap
  EXPECT_EQ(f[0].cost_per_step_ns, 700'000);
  EXPECT_EQ(f[0].saving_ns, 4 * 700'000 / 2);
  EXPECT_NEAR(f[0].confidence_terms.specificity, 0.6, 1e-12);
}

TEST(DeviceIdleRuleTest, BusyDeviceDoesNotFire) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Kernel(t0 + 10'000, 950'000, "gemm");
  }
  EXPECT_TRUE(RunRule(*MakeDeviceIdleRule(), s.Finish()).empty());
}

TEST(DeviceIdleRuleTest, HostOnlyTraceDoesNotApply) {
  SyntheticTrace s;
  s.Step(0, 1000, 1);
  s.Op(0, 10, "aten::mm");
  EXPECT_TRUE(RunRule(*MakeDeviceIdleRule(), s.Finish()).empty());
}

}  // namespace
}  // namespace cprof
