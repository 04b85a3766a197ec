// layout_conversion on synthetic traces: cuDNN layout kernels (GPU), permute + copying
// contiguous() (CPU), and a contiguous() that does not copy.
#include "analysis/diagnose/rules/rule_test_util.h"

namespace cprof {
namespace {

using testing::RunRule;
using testing::SyntheticTrace;

TEST(LayoutConversionRuleTest, NchwNhwcKernelsFire) {
  SyntheticTrace s;
  for (int step = 0; step < 3; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Kernel(t0, 100'000, "void cudnn::ops::nchwToNhwcKernel<float>");
    s.Kernel(t0 + 100'000, 500'000, "sm80_xmma_fprop_implicit_gemm");
    s.Kernel(t0 + 600'000, 100'000, "void cudnn::ops::nhwcToNchwKernel<float>");
  }
  std::vector<Finding> f = RunRule(*MakeLayoutConversionRule(), s.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].metrics[0].value, 600'000);         // conversion_ns
  EXPECT_NEAR(f[0].metrics[1].value, 0.2, 1e-12);
  EXPECT_EQ(f[0].metrics[3].value, 6);               // conversion kernels
  EXPECT_EQ(f[0].confidence_terms.specificity, 1.0);
  EXPECT_EQ(f[0].saving_ns, 480'000);
  EXPECT_NE(f[0].suggestions[0].snippet.find("channels_last"), std::string::npos);
}

TEST(LayoutConversionRuleTest, PermuteThenCopyingContiguousOnCpu) {
  SyntheticTrace s;
  for (int step = 0; step < 3; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Op(t0 + 1'000, 2'000, "aten::permute");
    s.Op(t0 + 5'000, 200'000, "aten::contiguous");
    s.Op(t0 + 6'000, 190'000, "aten::clone");  // the copy under it
    s.Op(t0 + 300'000, 1'000, "aten::contiguous");  // no child: already contiguous, free
    s.Op(t0 + 400'000, 500'000, "aten::conv2d");
  }
  std::vector<Finding> f = RunRule(*MakeLayoutConversionRule(), s.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].device, "cpu");
  EXPECT_EQ(f[0].metrics[0].value, 3 * 200'000);
  EXPECT_EQ(f[0].metrics[4].value, 3);  // copying contiguous() calls
  EXPECT_EQ(f[0].metrics[5].value, 3);  // each right after a permute
  EXPECT_NEAR(f[0].confidence_terms.specificity, 0.8, 1e-12);
}

TEST(LayoutConversionRuleTest, NonCopyingContiguousDoesNotFire) {
  SyntheticTrace s;
  for (int step = 0; step < 3; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Op(t0 + 300'000, 1'000, "aten::contiguous");
    s.Op(t0 + 400'000, 500'000, "aten::conv2d");
  }
  EXPECT_TRUE(RunRule(*MakeLayoutConversionRule(), s.Finish()).empty());
}

}  // namespace
}  // namespace cprof
