// exposed_communication on synthetic traces: an all-reduce after the computation, and one hidden
// behind it.
#include "analysis/diagnose/rules/rule_test_util.h"

namespace cprof {
namespace {

using testing::RunRule;
using testing::SyntheticTrace;

TEST(ExposedCommunicationRuleTest, AllReduceAfterComputeFires) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Kernel(t0, 500'000, "gemm", kNoCorrelation, 7);
    s.Kernel(t0 + 400'000, 400'000, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", kNoCorrelation, 8);  // 300 us exposed
  }
  std::vector<Finding> f = RunRule(*MakeExposedCommunicationRule(), s.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].category, Category::kExposedCommunication);
  EXPECT_EQ(f[0].metrics[0].value, 4 * 300'000);
  EXPECT_NEAR(f[0].metrics[1].value, 0.3, 1e-12);
  EXPECT_EQ(f[0].saving_ns, 4 * 300'000);  // min(exposed 300, compute 500) per step
  EXPECT_EQ(f[0].events.size(), 4u);
  EXPECT_NE(f[0].events[0].note.find("300 us"), std::string::npos) << f[0].events[0].note;
}

TEST(ExposedCommunicationRuleTest, HiddenAllReduceDoesNot) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Kernel(t0, 900'000, "gemm", kNoCorrelation, 7);
    s.Kernel(t0 + 100'000, 400'000, "ncclDevKernel_AllReduce", kNoCorrelation, 8);
  }
  EXPECT_TRUE(RunRule(*MakeExposedCommunicationRule(), s.Finish()).empty());
}

}  // namespace
}  // namespace cprof
