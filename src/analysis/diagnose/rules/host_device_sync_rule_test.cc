// host_device_sync on synthetic traces: item() draining the queue every step, and a sync that
// finds the device still busy.
#include "analysis/diagnose/rules/rule_test_util.h"

namespace cprof {
namespace {

using testing::RunRule;
using testing::SyntheticTrace;

TEST(HostDeviceSyncRuleTest, ItemEveryStepDrainsTheDevice) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Kernel(t0, 400'000, "gemm");
    SliceId item = s.Op(t0 + 10'000, 400'000, "aten::item");              // blocks until the gemm ends
    s.Op(t0 + 20'000, 380'000, "aten::_local_scalar_dense");              // nested: counted once
    s.Op(t0 + 30'000, 370'000, "cudaStreamSynchronize", kNoCorrelation, "cuda_runtime");
    (void)item;
    s.Op(t0 + 600'000, 10'000, "cudaLaunchKernel", kNoCorrelation, "cuda_runtime");
    s.Kernel(t0 + 610'000, 300'000, "gemm");  // device idle [400, 610) us
  }
  std::vector<Finding> f = RunRule(*MakeHostDeviceSyncRule(), s.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].category, Category::kHostDeviceSync);
  EXPECT_EQ(f[0].metrics[0].value, 4);                // syncs, outermost only
  EXPECT_EQ(f[0].metrics[3].value, 4 * 210'000);      // idle after the syncs
  EXPECT_EQ(f[0].events[0].name, "aten::item");
  EXPECT_EQ(f[0].saving_ns, 4 * 210'000);              // min(idle, blocked 400 us)
  EXPECT_GT(f[0].confidence, 0.6);
}

TEST(HostDeviceSyncRuleTest, SyncWhileTheDeviceStaysBusyDoesNotFire) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Kernel(t0, 990'000, "gemm", kNoCorrelation, 7);
    s.Kernel(t0, 995'000, "other", kNoCorrelation, 8);
    s.Op(t0 + 10'000, 100'000, "cudaStreamSynchronize", kNoCorrelation, "cuda_runtime");  // other stream busy
  }
  EXPECT_TRUE(RunRule(*MakeHostDeviceSyncRule(), s.Finish()).empty());
}

}  // namespace
}  // namespace cprof
