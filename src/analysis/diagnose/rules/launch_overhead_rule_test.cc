// launch_overhead on synthetic traces: tiny kernels with launch gaps (GPU), tiny ops (CPU), and
// the healthy counterparts.
#include "analysis/diagnose/rules/rule_test_util.h"

namespace cprof {
namespace {

using testing::RunRule;
using testing::SyntheticTrace;

TEST(LaunchOverheadRuleTest, TinyKernelsWithGapsFire) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    for (int k = 0; k < 50; ++k) s.Kernel(t0 + k * 20'000, 5'000, "vectorized_elementwise_kernel");  // 15 us gaps
  }
  std::vector<Finding> f = RunRule(*MakeLaunchOverheadRule(), s.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].category, Category::kLaunchOverhead);
  const double gap_fraction = f[0].metrics[5].value;
  EXPECT_EQ(f[0].metrics[5].name, "launch_gap_fraction");
  EXPECT_NEAR(gap_fraction, 49 * 15'000 / 1e6, 1e-9);  // 49 gaps of 15 us per 1 ms step
  EXPECT_EQ(f[0].metrics[2].value, 1.0);                 // every kernel under 10 us
  EXPECT_GT(f[0].confidence, 0.5);
  EXPECT_EQ(f[0].saving_ns, 4 * 49 * (15'000 - 2'000));
  EXPECT_EQ(f[0].cost_per_step_ns, 49 * 15'000);
}

TEST(LaunchOverheadRuleTest, BackToBackLongKernelsDoNot) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    for (int k = 0; k < 10; ++k) s.Kernel(t0 + k * 100'000, 99'000, "gemm");  // 1 us gaps
  }
  EXPECT_TRUE(RunRule(*MakeLaunchOverheadRule(), s.Finish()).empty());
}

TEST(LaunchOverheadRuleTest, CpuTinyOpsFireAndBigOpsDoNot) {
  SyntheticTrace tiny;
  for (int step = 0; step < 3; ++step) {
    const int64_t t0 = step * 1'000'000;
    tiny.Step(t0, 1'000'000, step);
    for (int k = 0; k < 200; ++k) tiny.Op(t0 + k * 5'000, 4'000, k % 2 ? "aten::add" : "aten::mul");
  }
  std::vector<Finding> f = RunRule(*MakeLaunchOverheadRule(), tiny.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].device, "cpu");
  EXPECT_EQ(f[0].metrics[1].value, 200);             // tiny ops per step
  EXPECT_EQ(f[0].metrics[3].value, 3 * 999'000);     // one storm per step: first start to last end
  EXPECT_NEAR(f[0].metrics[4].value, 0.999, 1e-9);
  EXPECT_EQ(f[0].metrics[5].value, 3 * 200 * 4'000);  // their self time
  EXPECT_EQ(f[0].saving_ns, static_cast<int64_t>(0.8 * 3 * 999'000));

  SyntheticTrace sparse;  // the same ops, 1 ms apart: not a storm, each is just a small op
  for (int step = 0; step < 3; ++step) {
    const int64_t t0 = step * 100'000'000;
    sparse.Step(t0, 100'000'000, step);
    for (int k = 0; k < 90; ++k) sparse.Op(t0 + k * 1'000'000, 4'000, "aten::add");
  }
  EXPECT_TRUE(RunRule(*MakeLaunchOverheadRule(), sparse.Finish()).empty());

  SyntheticTrace big;
  for (int step = 0; step < 3; ++step) {
    const int64_t t0 = step * 1'000'000;
    big.Step(t0, 1'000'000, step);
    for (int k = 0; k < 4; ++k) big.Op(t0 + k * 250'000, 240'000, "aten::conv2d");
  }
  EXPECT_TRUE(RunRule(*MakeLaunchOverheadRule(), big.Finish()).empty());
}

}  // namespace
}  // namespace cprof
