// Golden: steps detected on real Kineto and torch_npu traces with ProfilerStep#N annotations.
#include <gtest/gtest.h>

#include "analysis/step_detector.h"
#include "import/import_trace.h"

namespace cprof {
namespace {

StatusOr<Trace> Import(const std::string& rel) { return ImportTrace(std::string(CPROF_FIXTURES_DIR) + "/" + rel); }

TEST(StepDetectorGoldenTest, KinetoUserAnnotations) {
  // hta/trace_diff/control: ProfilerStep#1009..#1014 (user_annotation, integer us timestamps).
  StatusOr<Trace> trace = Import("kineto/hta/trace_diff/control/control.json.gz");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::vector<Step> steps = DetectSteps(*trace);
  ASSERT_EQ(steps.size(), 6u);
  for (size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].id, 1009 + static_cast<int64_t>(i));
    EXPECT_EQ(steps[i].source, StepSource::kProfilerStep);
  }
  EXPECT_EQ(steps[0].start_ns, 1661203462598772000);
  EXPECT_EQ(steps[0].dur_ns, 75473000);
  EXPECT_EQ(steps[5].start_ns, 1661203462982823000);
  EXPECT_EQ(steps[5].dur_ns, 81120000);
}

TEST(StepDetectorGoldenTest, KinetoFractionalTimestampsAndGpuAnnotationsIgnored) {
  // ns_resolution_trace: ts with ns digits ("ts": 1712195495502094.565, which a double rounds to
  // ...094.5); the importer keeps every digit.
  StatusOr<Trace> trace = Import("kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::vector<Step> steps = DetectSteps(*trace);
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(steps[0].id, 101);
  EXPECT_EQ(steps[0].start_ns, 1712195495502094565);
  EXPECT_EQ(steps[0].dur_ns, 35115869);
  EXPECT_EQ(steps[4].id, 105);

  // mi250: ProfilerStep#1 appears on the CPU and as a gpu_user_annotation; only the CPU one counts.
  StatusOr<Trace> amd = Import("kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  ASSERT_TRUE(amd.ok()) << amd.status().message();
  std::vector<Step> amd_steps = DetectSteps(*amd);
  ASSERT_EQ(amd_steps.size(), 2u);
  EXPECT_EQ(amd_steps[0].id, 1);
  EXPECT_EQ(amd_steps[0].dur_ns, 9288291);
  EXPECT_EQ(amd_steps[1].id, 2);
  EXPECT_EQ(amd_steps[1].dur_ns, 49073);
  EXPECT_EQ(amd_steps[1].start_ns - amd_steps[0].start_ns, 4203669612512740 - 4203669603187439);
}

TEST(StepDetectorGoldenTest, TorchNpuCpuOpProfilerStep) {
  StatusOr<Trace> trace = Import("ascend/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::vector<Step> steps = DetectSteps(*trace);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].id, 50);
  EXPECT_EQ(steps[0].start_ns, 1736408883686740710);
  EXPECT_EQ(steps[0].dur_ns, 155985800);
}

}  // namespace
}  // namespace cprof
