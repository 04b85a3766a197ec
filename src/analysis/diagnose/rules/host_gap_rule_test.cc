// host_gap and dataloader on synthetic steps: untraced time with Python frames in it, data-loading
// spans, an input-pipeline gap at the step start, and steps that are fully covered.
#include <gtest/gtest.h>

#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rules_test_util.h"

namespace cprof {
namespace {

using testing_host::ExpectWellFormed;
using testing_host::HostTraceBuilder;
using testing_host::kMs;
using testing_host::RunRule;

// Ten 10 ms steps; each has `op_ms` of operators at its start, then untraced time.
Trace StepsWithGap(int64_t op_ms, bool python_frames) {
  HostTraceBuilder h;
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 10 * kMs);
    for (int k = 0; k < op_ms; ++k) h.Op("aten::addmm", t0 + k * kMs, kMs - 10'000);
    if (python_frames && op_ms < 10) {
      h.PyFrame("train.py(1): <module>", t0, 10 * kMs);
      h.PyFrame("metrics.py(12): compute_report", t0 + op_ms * kMs, (10 - op_ms) * kMs);
    }
  }
  return h.Finish();
}

TEST(HostGapRuleTest, UntracedPythonWorkInsideStepsIsFoundAndNamed) {
  Trace t = StepsWithGap(3, true);
  std::vector<Finding> f = RunRule(*MakeHostGapRule(), t);
  ASSERT_EQ(f.size(), 1u);
  ExpectWellFormed(f[0]);
  EXPECT_EQ(f[0].category, Category::kHostGap);
  EXPECT_NEAR(f[0].metrics[0].value, 0.7, 0.01);  // untraced share
  EXPECT_NEAR(static_cast<double>(f[0].cost_per_step_ns), 7.0 * kMs, 0.1 * kMs);
  EXPECT_EQ(f[0].saving_ns, static_cast<int64_t>(0.8 * static_cast<double>(f[0].cost_total_ns)));  // no CPU samples
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.specificity, 1.0);
  EXPECT_GT(f[0].confidence, 0.7);
  EXPECT_NE(f[0].summary.find("compute_report"), std::string::npos) << f[0].summary;
  bool cites_frame = false;
  for (const EvidenceEvent& e : f[0].events) cites_frame |= e.name == "metrics.py(12): compute_report";
  EXPECT_TRUE(cites_frame);
}

TEST(HostGapRuleTest, WithoutFramesTheGapIsOnlyInferred) {
  Trace t = StepsWithGap(3, false);
  std::vector<Finding> f = RunRule(*MakeHostGapRule(), t);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.specificity, 0.7);
}

TEST(HostGapRuleTest, AThreadThatWaitsInTheGapsIsLessLikelyHostWork) {
  // CPU samples every 1 ms while operators run, none in the gaps: the thread was off-CPU there.
  HostTraceBuilder h;
  h.Meta("cpu_sampling_hz", "1000");
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 10 * kMs);
    h.Op("aten::addmm", t0, 3 * kMs);
    for (int k = 0; k < 3; ++k) h.CpuSample(t0 + k * kMs + kMs / 2);
  }
  std::vector<Finding> f = RunRule(*MakeHostGapRule(), h.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.specificity, 0.7 * 0.3);
  EXPECT_EQ(f[0].saving_ns, 0);  // nothing ran in the gaps: nothing to move
  EXPECT_NE(f[0].summary.find("mostly waited"), std::string::npos) << f[0].summary;
}

TEST(HostGapRuleTest, WaitingForTracedWorkOnAnotherThreadIsNotAGap) {
  // The step thread sits in backward() while the autograd engine's thread runs the ops.
  HostTraceBuilder h;
  const TrackId engine = h.builder().ThreadTrack(1, 2);
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 10 * kMs);
    h.Op("aten::addmm", t0, 3 * kMs);
    h.Slice(engine, "autograd::engine::evaluate_function: AddmmBackward0", "cpu_op", t0 + 3 * kMs, 7 * kMs);
  }
  EXPECT_TRUE(RunRule(*MakeHostGapRule(), h.Finish()).empty());
}

TEST(HostGapRuleTest, CoveredStepsAndShortDispatchGapsDoNotFire) {
  EXPECT_TRUE(RunRule(*MakeHostGapRule(), StepsWithGap(10, true)).empty());
  // Many tiny gaps between tiny ops (dispatch cost) are launch_overhead's, not host_gap's.
  HostTraceBuilder h;
  for (int i = 0; i < 5; ++i) {
    h.Step(i, i * 10 * kMs, 10 * kMs);
    for (int k = 0; k < 1000; ++k) h.Op("aten::add", i * 10 * kMs + k * 10'000, 5'000);
  }
  EXPECT_TRUE(RunRule(*MakeHostGapRule(), h.Finish()).empty());
}

TEST(DataloaderRuleTest, DataLoaderSpansInsideStepsFire) {
  HostTraceBuilder h;
  h.MetaInt("cpu_cores", 2);
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 10 * kMs);
    h.Span("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "user_annotation", t0, 6 * kMs);
    h.Op("aten::addmm", t0 + 6 * kMs, 4 * kMs);
  }
  Trace t = h.Finish();
  std::vector<Finding> f = RunRule(*MakeDataloaderRule(), t);
  ASSERT_EQ(f.size(), 1u);
  ExpectWellFormed(f[0]);
  EXPECT_EQ(f[0].category, Category::kDataloader);
  EXPECT_NEAR(f[0].metrics[0].value, 0.6, 0.01);
  // One worker on 2 cores: a step takes max(6, 4) instead of 10, saving 4 ms per step.
  EXPECT_NEAR(static_cast<double>(f[0].saving_ns), 40.0 * kMs, 0.5 * kMs);
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.specificity, 1.0);
  EXPECT_FALSE(f[0].events.empty());
  // The spans cover the time, so host_gap has nothing to add.
  EXPECT_TRUE(RunRule(*MakeHostGapRule(), t).empty());
}

TEST(DataloaderRuleTest, InputPipelineFramesInALeadingGapAreLoadingNotHostGap) {
  HostTraceBuilder h;
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 10 * kMs);
    h.PyFrame("train.py(1): <module>", t0, 10 * kMs);
    h.PyFrame("data.py(30): __getitem__", t0, 5 * kMs);
    h.Op("aten::addmm", t0 + 5 * kMs, 5 * kMs);
  }
  Trace t = h.Finish();
  std::vector<Finding> f = RunRule(*MakeDataloaderRule(), t);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_DOUBLE_EQ(f[0].confidence_terms.specificity, 0.8);
  EXPECT_NEAR(f[0].metrics[0].value, 0.5, 0.01);
  EXPECT_TRUE(RunRule(*MakeHostGapRule(), t).empty());
}

TEST(DataloaderRuleTest, FetchesBetweenMarkedStepsBelongToTheLoop) {
  // for x, y in loader: with record_function("ProfilerStep#N"): ... -- the fetch is outside.
  HostTraceBuilder h;
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Span("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", "user_annotation", t0, 6 * kMs);
    h.Step(i, t0 + 6 * kMs, 4 * kMs);
    h.Op("aten::addmm", t0 + 6 * kMs, 4 * kMs);
  }
  std::vector<Finding> f = RunRule(*MakeDataloaderRule(), h.Finish());
  ASSERT_EQ(f.size(), 1u);
  // Nine iterations hold a whole 6 ms fetch (the last step has no next one).
  EXPECT_EQ(f[0].cost_total_ns, 9 * 6 * kMs);
}

TEST(HostGapRuleTest, PythonWorkBetweenMarkedStepsCounts) {
  HostTraceBuilder h;
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 4 * kMs);
    h.Op("aten::addmm", t0 + 10, 4 * kMs - 20);  // then 6 ms of untraced Python before the next step
  }
  std::vector<Finding> f = RunRule(*MakeHostGapRule(), h.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_NEAR(static_cast<double>(f[0].cost_total_ns), 9.0 * 6 * kMs, 1000);
}

TEST(DataloaderRuleTest, FastLoadingDoesNotFire) {
  HostTraceBuilder h;
  for (int i = 0; i < 10; ++i) {
    const int64_t t0 = i * 10 * kMs;
    h.Step(i, t0, 10 * kMs);
    h.Span("DataLoader.__next__", "dataloader", t0, kMs / 2);
    h.Op("aten::addmm", t0 + kMs / 2, 9 * kMs + kMs / 2);
  }
  EXPECT_TRUE(RunRule(*MakeDataloaderRule(), h.Finish()).empty());
}

}  // namespace
}  // namespace cprof
