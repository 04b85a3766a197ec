// Step detection on small TraceBuilder traces: each rule, and the order between them.
#include "analysis/step_detector.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace cprof {
namespace {

SliceId Add(TraceBuilder& b, TrackId t, int64_t ts, int64_t dur, std::string_view name,
            std::string_view cat = "") {
  return b.AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = t, .name_id = b.Intern(name),
                     .category_id = b.Intern(cat)});
}

TEST(StepDetectorTest, ProfilerStepsOnTheHostThread) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  TrackId other = b.ThreadTrack(1, 2);
  TrackId gpu = b.StreamTrack(TrackKind::kGpuStream, 0, 7);
  Add(b, cpu, 100, 50, "ProfilerStep#4", "user_annotation");
  Add(b, cpu, 110, 10, "aten::mm", "cpu_op");
  Add(b, cpu, 0, 90, "ProfilerStep#3", "user_annotation");
  Add(b, cpu, 5, 10, "ProfilerStep#99", "user_annotation");  // nested in #3: skipped
  Add(b, other, 0, 10, "ProfilerStep#7", "user_annotation");  // fewer on this thread
  Add(b, gpu, 10, 90, "ProfilerStep#3", "gpu_user_annotation");
  ASSERT_TRUE(b.Finalize().ok());
  std::vector<Step> steps = DetectSteps(trace);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].id, 3);
  EXPECT_EQ(steps[0].start_ns, 0);
  EXPECT_EQ(steps[0].dur_ns, 90);
  EXPECT_EQ(steps[0].source, StepSource::kProfilerStep);
  EXPECT_EQ(steps[1].id, 4);
  EXPECT_EQ(steps[1].name, "ProfilerStep#4");
  EXPECT_EQ(steps[1].end_ns(), 150);

  std::vector<Step> windowed = DetectSteps(trace, TimeWindow{.start_ns = 50, .end_ns = 1000});
  ASSERT_EQ(windowed.size(), 1u);
  EXPECT_EQ(windowed[0].id, 4);
}

// torch.profiler's loop opens a last ProfilerStep at its last prof.step() that the profiler's exit
// closes at once (holding only the record_function's aten::empty): 9 steps for 8 iterations,
// min(step) 0.05 ms. It is left out; a last step of real length stays, and so does a short one
// that ran operators.
TEST(StepDetectorTest, TheStepTorchProfilerOpensLastIsLeftOut) {
  auto detect = [](int64_t tail_dur, int tail_ops = 0) {
    Trace trace;
    TraceBuilder b(&trace);
    TrackId cpu = b.ThreadTrack(1, 1);
    for (int i = 0; i < 4; ++i) {
      Add(b, cpu, i * 1000, 900 + i, "ProfilerStep#" + std::to_string(i), "user_annotation");
      Add(b, cpu, i * 1000 + 1, 1, "aten::empty", "cpu_op");
    }
    Add(b, cpu, 4000, tail_dur, "ProfilerStep#4", "user_annotation");
    Add(b, cpu, 4000, 1, "aten::empty", "cpu_op");
    for (int k = 0; k < tail_ops; ++k) Add(b, cpu, 4002 + 2 * k, 1, "aten::add", "cpu_op");
    EXPECT_TRUE(b.Finalize().ok());
    return DetectSteps(trace);
  };
  std::vector<Step> steps = detect(30);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps.back().id, 3);
  EXPECT_EQ(detect(300).size(), 5u);     // a short last batch is a step
  EXPECT_EQ(detect(30, 3).size(), 5u);   // a very short one that ran operators too
  EXPECT_EQ(detect(30, 0).size(), 4u);
}

TEST(StepDetectorTest, StepLikeAnnotations) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  Add(b, cpu, 0, 100, "train_loop");
  Add(b, cpu, 0, 40, "train_step 12", "user_annotation");
  Add(b, cpu, 50, 40, "train_step 13", "user_annotation");
  Add(b, cpu, 200, 5, "Iteration 1");  // a different pattern, once
  Add(b, cpu, 300, 5, "stepper");      // not step-like
  Add(b, cpu, 400, 5, "stepper");
  ASSERT_TRUE(b.Finalize().ok());
  std::vector<Step> steps = DetectSteps(trace);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].id, 12);
  EXPECT_EQ(steps[1].id, 13);
  EXPECT_EQ(steps[1].start_ns, 50);
  EXPECT_EQ(steps[0].source, StepSource::kUserAnnotation);
}

TEST(StepDetectorTest, UnnumberedAnnotationsAreIndexed) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  Add(b, cpu, 100, 10, "Step");
  Add(b, cpu, 0, 10, "step");
  ASSERT_TRUE(b.Finalize().ok());
  std::vector<Step> steps = DetectSteps(trace);
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].id, 0);
  EXPECT_EQ(steps[1].id, 1);
  EXPECT_EQ(steps[1].start_ns, 100);
}

TEST(StepDetectorTest, RepeatedTopLevelSpansOnTheBusiestThread) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId main = b.ThreadTrack(1, 1);
  TrackId idle = b.ThreadTrack(1, 2);
  for (int i = 0; i < 4; ++i) {
    Add(b, main, i * 100, 80, "forward_backward");
    Add(b, main, i * 100 + 1, 10, "aten::mm");  // nested: depth 1
    Add(b, main, i * 100 + 85, 5, "log");
  }
  Add(b, main, 1000, 500, "setup");  // longest, but only once
  for (int i = 0; i < 5; ++i) Add(b, main, 2000 + i * 200, 150, "cudaDeviceSynchronize", "cuda_runtime");
  for (int i = 0; i < 5; ++i) Add(b, main, 3000 + i * 200, 150, "hipMemcpyAsync");
  for (int i = 0; i < 5; ++i) Add(b, idle, i * 10, 1, "poll");
  ASSERT_TRUE(b.Finalize().ok());
  std::vector<Step> steps = DetectSteps(trace);
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].name, "forward_backward");
  EXPECT_EQ(steps[0].id, 0);
  EXPECT_EQ(steps[3].id, 3);
  EXPECT_EQ(steps[3].start_ns, 300);
  EXPECT_EQ(steps[0].source, StepSource::kRepeatedSpan);
}

TEST(StepDetectorTest, RuntimeCallsAreNeverSteps) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  for (int i = 0; i < 5; ++i) Add(b, cpu, i * 100, 50, "cudaDeviceSynchronize");
  for (int i = 0; i < 5; ++i) Add(b, cpu, 1000 + i * 100, 50, "cuLaunchKernel");
  ASSERT_TRUE(b.Finalize().ok());
  EXPECT_TRUE(DetectSteps(trace).empty());
}

// What `trace` records around a script that marks no steps: GC pauses, DataLoader fetches and
// frames rebuilt from Python stack samples (a `train_step` among them) recur, and none is a step.
TEST(StepDetectorTest, ShimPausesFetchesAndSampledFramesAreNeverSteps) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  TrackId sampled = b.ChildTrack(cpu, TrackKind::kThread, b.Intern("python (sampled)"));
  for (int i = 0; i < 5; ++i) Add(b, cpu, i * 100, 50, "gc.collect gen1", "gc");
  for (int i = 0; i < 5; ++i) Add(b, cpu, 1000 + i * 100, 50, "DataLoader.__next__", "dataloader");
  for (int i = 0; i < 5; ++i) Add(b, sampled, 2000 + i * 100, 90, "train.py(12): train_step", "python_function");
  for (int i = 0; i < 5; ++i) Add(b, sampled, 3000 + i * 100, 90, "<frozen importlib._bootstrap>", "python_function");
  ASSERT_TRUE(b.Finalize().ok());
  EXPECT_TRUE(DetectSteps(trace).empty());
}

TEST(StepDetectorTest, NoStepsInAnEmptyOrFlatTrace) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  Add(b, cpu, 0, 10, "a");
  Add(b, cpu, 20, 10, "b");
  ASSERT_TRUE(b.Finalize().ok());
  EXPECT_TRUE(DetectSteps(trace).empty());
}

}  // namespace
}  // namespace cprof
