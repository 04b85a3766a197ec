// The per-step breakdown: every part by its rule, and the parts always sum to the step.
#include "analysis/step_breakdown.h"

#include <gtest/gtest.h>

#include <random>

#include "model/trace_builder.h"

namespace cprof {
namespace {

SliceId Add(TraceBuilder& b, TrackId t, int64_t ts, int64_t dur, std::string_view name, std::string_view cat) {
  return b.AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = t, .name_id = b.Intern(name), .category_id = b.Intern(cat)});
}

TEST(StepBreakdownTest, EachPartByItsRule) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  TrackId gpu = b.StreamTrack(TrackKind::kGpuStream, 0, 7);
  Add(b, cpu, 0, 1000, "ProfilerStep#1", "user_annotation");
  Add(b, cpu, 100, 200, "aten::mm", "cpu_op");      // host ops cover [100,300) and [500,600)
  Add(b, cpu, 500, 100, "aten::add", "cpu_op");
  Add(b, gpu, 150, 100, "gemm", "kernel");           // compute [150,250)
  Add(b, gpu, 200, 150, "ncclAllReduce", "kernel");  // comm [200,350): exposed [250,350)
  Add(b, gpu, 700, 50, "Memcpy HtoD", "gpu_memcpy"); // memcpy [700,750)
  ASSERT_TRUE(b.Finalize().ok());
  std::vector<Step> steps = DetectSteps(trace);
  ASSERT_EQ(steps.size(), 1u);
  std::vector<StepBreakdown> out = ComputeStepBreakdown(trace, steps, CollectDeviceIntervals(trace));
  ASSERT_EQ(out.size(), 1u);
  const StepBreakdown& s = out[0];
  EXPECT_EQ(s.device_compute_ns, 100);
  EXPECT_EQ(s.exposed_comm_ns, 100);
  EXPECT_EQ(s.exposed_memcpy_ns, 50);
  // Device idle: [0,150) [350,700) [750,1000). Host ops there: [100,150) and [500,600).
  EXPECT_EQ(s.host_framework_ns, 50 + 100);
  // Between the first host op start (100) and the last end (600), not host, not device: [350,500).
  EXPECT_EQ(s.untraced_host_ns, 150);
  // The rest: [0,100) and [600,700) and [750,1000).
  EXPECT_EQ(s.idle_ns, 100 + 100 + 250);
  EXPECT_EQ(s.host_ops, 2);
  EXPECT_EQ(s.Sum(), s.dur_ns);
}

TEST(StepBreakdownTest, HostOnlyAndWindowWithoutASlice) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  Add(b, cpu, 0, 100, "ProfilerStep#1", "user_annotation");
  Add(b, cpu, 200, 100, "ProfilerStep#2", "user_annotation");  // no ops: all untraced
  Add(b, cpu, 10, 30, "aten::mm", "cpu_op");
  Add(b, cpu, 60, 20, "aten::add", "cpu_op");
  ASSERT_TRUE(b.Finalize().ok());
  std::vector<StepBreakdown> out = ComputeStepBreakdown(trace, DetectSteps(trace), DeviceIntervals{});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].host_framework_ns, 50);
  EXPECT_EQ(out[0].untraced_host_ns, 20);
  EXPECT_EQ(out[0].idle_ns, 30);
  EXPECT_EQ(out[1].untraced_host_ns, 100);
  EXPECT_EQ(out[1].host_ops, 0);
  // A window standing in for a step takes its host ops from the given thread.
  Step w{.id = -1, .start_ns = 0, .dur_ns = 300, .slice_row = UINT32_MAX};
  std::vector<StepBreakdown> span = ComputeStepBreakdown(trace, {w}, DeviceIntervals{}, cpu);
  ASSERT_EQ(span.size(), 1u);
  EXPECT_EQ(span[0].Sum(), 300);
  EXPECT_EQ(span[0].host_framework_ns, 100 + 100);  // both steps' slices cover themselves
}

TEST(StepBreakdownTest, PartsSumToTheStepOnRandomTraces) {
  std::mt19937 rng(7);
  for (int round = 0; round < 20; ++round) {
    Trace trace;
    TraceBuilder b(&trace);
    TrackId cpu = b.ThreadTrack(1, 1);
    TrackId gpu = b.StreamTrack(TrackKind::kGpuStream, 0, 7);
    TrackId gpu2 = b.StreamTrack(TrackKind::kGpuStream, 0, 8);
    for (int s = 0; s < 3; ++s) Add(b, cpu, s * 10000, 9000 + s * 10, "ProfilerStep#" + std::to_string(s), "user_annotation");
    for (int i = 0; i < 40; ++i) {
      const int64_t ts = rng() % 30000, dur = 1 + rng() % 800;
      switch (rng() % 5) {
        case 0: Add(b, gpu, ts, dur, "gemm", "kernel"); break;
        case 1: Add(b, gpu2, ts, dur, "ncclKernel", "kernel"); break;
        case 2: Add(b, gpu2, ts, dur, "Memset", "gpu_memset"); break;
        default: break;
      }
    }
    for (int s = 0; s < 3; ++s)  // non-overlapping host ops inside each step
      for (int64_t ts = s * 10000 + 100 + rng() % 500; ts < s * 10000 + 8500; ts += 300 + rng() % 700)
        Add(b, cpu, ts, 1 + rng() % 250, "aten::op", "cpu_op");
    ASSERT_TRUE(b.Finalize().ok());
    for (const StepBreakdown& s : ComputeStepBreakdown(trace, DetectSteps(trace), CollectDeviceIntervals(trace))) {
      EXPECT_EQ(s.Sum(), s.dur_ns) << "round " << round << " step " << s.step_id;
      EXPECT_GE(s.host_framework_ns, 0);
      EXPECT_GE(s.untraced_host_ns, 0);
      EXPECT_GE(s.idle_ns, 0);
    }
  }
}

}  // namespace
}  // namespace cprof
