// reference_blas rule on synthetic host traces: CPU samples whose innermost frame is a BLAS entry
// point in the reference libblas fire it (attributed to the operator around them); the same
// samples in an optimized library, or too few of them, do not.
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

// A sample of the main thread whose innermost frame is `function` in `module`, called from `caller`.
void Sample(HostTraceBuilder& h, int64_t ts, const std::string& module, const std::string& function,
            const std::string& caller = "at::native::addmm_impl_cpu_") {
  TraceBuilder& b = h.builder();
  FrameId outer = b.AddFrame({.function_id = b.Intern(caller), .module_id = b.Intern("libtorch_cpu.so.1.13.0")});
  FrameId leaf = b.AddFrame({.function_id = b.Intern(function), .module_id = b.Intern(module)});
  b.AddSample({.ts_ns = ts, .track_id = h.thread(), .stack_id = b.AddStack(b.AddStack(kNoStack, outer), leaf)});
}

// 10 steps of 10 ms; in each, aten::linear > aten::addmm over the first 6 ms and aten::softmax
// after it; 10 samples per step (one per ms), `blas` of them inside the addmm in (module, fn).
Trace Workload(int blas, const std::string& module = "libblas.so.3.11.0", const std::string& fn = "sgemm_") {
  HostTraceBuilder h;
  for (int s = 0; s < 10; ++s) {
    const int64_t t0 = s * 10 * kMs;
    h.Step(s, t0, 10 * kMs);
    h.Op("aten::linear", t0, 6 * kMs + s * 1000);
    h.Op("aten::addmm", t0 + 100, 6 * kMs - 200 + s * 1000);
    h.Op("aten::softmax", t0 + 7 * kMs, 2 * kMs);
    for (int k = 0; k < 10; ++k) {
      const int64_t ts = t0 + k * kMs + 500'000;
      if (k < blas)
        Sample(h, ts, module, fn);
      else
        Sample(h, ts, "libtorch_cpu.so.1.13.0", "at::vec::softmax_lastdim_kernel", "at::native::softmax");
    }
  }
  return h.Finish();
}

TEST(ReferenceBlasRuleTest, FiresOnReferenceGemmUnderAddmm) {
  Trace t = Workload(6);
  std::vector<Finding> f = RunRule(*MakeReferenceBlasRule(), t);
  ASSERT_EQ(f.size(), 1u);
  ExpectWellFormed(f[0]);
  EXPECT_EQ(f[0].category, Category::kAffinityApi);
  EXPECT_NE(f[0].title.find("sgemm_"), std::string::npos) << f[0].title;
  EXPECT_NE(f[0].title.find("aten::addmm"), std::string::npos) << f[0].title;
  // 60% of the samples: magnitude 1 - 0.15/0.6 = 0.75; every step has them.
  EXPECT_NEAR(f[0].confidence_terms.magnitude, 0.75, 1e-9);
  EXPECT_NEAR(f[0].confidence_terms.consistency, 1.0, 1e-9);
  EXPECT_NEAR(f[0].confidence_terms.specificity, 1.0, 1e-9);  // aten ops: PyTorch ships oneDNN
  // Cost: 60% of the 100 ms of steps; saving two thirds of it.
  EXPECT_NEAR(static_cast<double>(f[0].cost_total_ns), 60.0 * kMs, 1.0 * kMs);
  EXPECT_NEAR(static_cast<double>(f[0].saving_ns), 40.0 * kMs, 1.0 * kMs);
  EXPECT_EQ(f[0].cost_per_step_ns, f[0].cost_total_ns / 10);
  // The evidence is the longest addmm (step 9's), the operator that called the BLAS.
  ASSERT_FALSE(f[0].events.empty());
  EXPECT_EQ(f[0].events[0].name, "aten::addmm");
  EXPECT_EQ(f[0].events[0].dur_ns, 6 * kMs - 200 + 9 * 1000);
  bool has_code = false;
  for (const Suggestion& s : f[0].suggestions) has_code |= s.kind == "code" && s.snippet.find("mkldnn") != std::string::npos;
  EXPECT_TRUE(has_code);
}

// 10 steps of 10 ms, each one aten::_slow_conv2d_forward with `input_dims`, every sample in sgemm_.
Trace ConvFallback(const std::string& input_dims) {
  HostTraceBuilder h;
  for (int s = 0; s < 10; ++s) {
    const int64_t t0 = s * 10 * kMs;
    h.Step(s, t0, 10 * kMs);
    h.Op("aten::_slow_conv2d_forward", t0, 10 * kMs, input_dims);  // starts with its step: the step is its parent
    for (int k = 0; k < 10; ++k) Sample(h, t0 + k * kMs + 500'000, "libblas.so.3", "sgemm_", "at::native::slow_conv2d");
  }
  return h.Finish();
}

TEST(ReferenceBlasRuleTest, PointwiseConvolutionFallbackSuggestsASecondThread) {
  // A 1x1 convolution at batch 2: PyTorch's im2col path on one thread in NCHW and NHWC alike.
  std::vector<Finding> f = RunRule(*MakeReferenceBlasRule(), ConvFallback("[[2, 64, 16, 16], [128, 64, 1, 1], [], [], [], []]"));
  ASSERT_EQ(f.size(), 1u);
  ExpectWellFormed(f[0]);
  EXPECT_NE(f[0].title.find("aten::_slow_conv2d_forward (100%)"), std::string::npos) << f[0].title;
  EXPECT_NEAR(Metric(f[0], "pointwise_small_batch_conv_share"), 1.0, 1e-9);
  ASSERT_FALSE(f[0].suggestions.empty());
  EXPECT_NE(f[0].suggestions[0].snippet.find("set_num_threads(2)"), std::string::npos) << f[0].suggestions[0].snippet;
  EXPECT_EQ(f[0].suggestions[0].snippet.find("channels_last"), std::string::npos);  // would not change the path
  // Every sample is in the reference BLAS: the cost is all of the steps' time.
  EXPECT_NEAR(static_cast<double>(f[0].cost_total_ns), 100.0 * kMs, 1.0 * kMs);
}

TEST(ReferenceBlasRuleTest, OtherConvolutionFallbackSuggestsOneDnnAndFloat32) {
  // 3x3 kernels reach the im2col path only with oneDNN off or another dtype; a batch of 32 1x1
  // convolutions goes to oneDNN on one thread, so neither is the thread case.
  for (const char* dims : {"[[2, 64, 16, 16], [64, 64, 3, 3], [], [], [], []]",
                           "[[32, 64, 16, 16], [128, 64, 1, 1], [], [], [], []]", "not dims"}) {
    std::vector<Finding> f = RunRule(*MakeReferenceBlasRule(), ConvFallback(dims));
    ASSERT_EQ(f.size(), 1u) << dims;
    EXPECT_NEAR(Metric(f[0], "pointwise_small_batch_conv_share"), 0.0, 1e-9) << dims;
    ASSERT_FALSE(f[0].suggestions.empty());
    EXPECT_NE(f[0].suggestions[0].snippet.find("mkldnn.enabled"), std::string::npos) << dims;
  }
}

TEST(ReferenceBlasRuleTest, OptimizedBlasDoesNotFire) {
  // OpenBLAS computes in its kernels: the innermost frame is never the entry point.
  EXPECT_TRUE(RunRule(*MakeReferenceBlasRule(), Workload(6, "libopenblasp-r0.3.21.so", "sgemm_kernel_HASWELL")).empty());
  // A libblas.so.3 that is not the reference one (ATLAS's) shows its own kernels as the leaf too.
  EXPECT_TRUE(RunRule(*MakeReferenceBlasRule(), Workload(6, "libblas.so.3.10.3", "ATL_sJIK0x0x0TN0x0x0_a1_b1")).empty());
  // oneDNN's gemm.
  EXPECT_TRUE(RunRule(*MakeReferenceBlasRule(), Workload(6, "libdnnl.so.2", "dnnl_sgemm")).empty());
}

TEST(ReferenceBlasRuleTest, BelowThresholdOrTooFewSamplesDoesNotFire) {
  // 10% of the samples: under the 15% threshold.
  EXPECT_TRUE(RunRule(*MakeReferenceBlasRule(), Workload(1)).empty());
  // 2 of 10 samples in 10 steps = 20 samples: at the minimum, fires; 20% share.
  std::vector<Finding> f = RunRule(*MakeReferenceBlasRule(), Workload(2));
  ASSERT_EQ(f.size(), 1u);
  EXPECT_LT(f[0].confidence, RunRule(*MakeReferenceBlasRule(), Workload(8))[0].confidence);
}

TEST(ReferenceBlasRuleTest, NoSamplesNoFinding) {
  HostTraceBuilder h;
  for (int s = 0; s < 10; ++s) {
    h.Step(s, s * 10 * kMs, 10 * kMs);
    h.Op("aten::addmm", s * 10 * kMs, 8 * kMs);
  }
  EXPECT_TRUE(RunRule(*MakeReferenceBlasRule(), h.Finish()).empty());
}

}  // namespace
}  // namespace cprof
