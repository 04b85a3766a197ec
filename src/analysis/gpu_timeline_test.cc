// The device-time breakdown on small traces with known answers (TraceLens definitions).
#include "analysis/gpu_timeline.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace cprof {
namespace {

void Add(TraceBuilder& b, TrackId t, int64_t ts, int64_t dur, std::string_view name, std::string_view cat,
         ArgSetId args = kNoArgs) {
  b.AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = t, .name_id = b.Intern(name),
              .category_id = b.Intern(cat), .arg_set_id = args});
}

TEST(GpuTimelineTest, TraceLensDefinitions) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId s7 = b.StreamTrack(TrackKind::kGpuStream, 0, 7);
  TrackId s8 = b.StreamTrack(TrackKind::kGpuStream, 1, 8);  // another device: same timeline
  TrackId cpu = b.ThreadTrack(1, 1);
  Add(b, s7, 100, 100, "gemm", "kernel");                          // C [100,200)
  Add(b, s7, 200, 50, "elementwise", "kernel");                    // touches: C [100,250)
  Add(b, s8, 150, 200, "ncclDevKernel_AllReduce", "kernel");       // M [150,350)
  Add(b, s8, 400, 30, "Memcpy HtoD", "gpu_memcpy");                // P [400,430)
  Add(b, s7, 420, 20, "Memset", "gpu_memset");                     // C [420,440)
  Add(b, s7, 500, 0, "empty", "kernel");                           // zero length, extends total
  Add(b, s7, 90, 500, "ProfilerStep#1", "gpu_user_annotation");     // not device work
  Add(b, cpu, 0, 1000, "aten::mm", "cpu_op");                      // host: ignored
  ASSERT_TRUE(b.Finalize().ok());
  std::optional<GpuTimeline> t = ComputeGpuTimeline(trace);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->computation_ns, 150 + 20);          // [100,250) + [420,440)
  EXPECT_EQ(t->exposed_comm_ns, 100);              // [250,350)
  EXPECT_EQ(t->exposed_memcpy_ns, 20);             // [400,420)
  EXPECT_EQ(t->busy_ns, 250 + 40);                 // [100,350) + [400,440)
  EXPECT_EQ(t->total_ns, 400);                     // 100 .. 500
  EXPECT_EQ(t->idle_ns, 110);
  EXPECT_EQ(t->total_comm_ns, 200);
  EXPECT_EQ(t->total_memcpy_ns, 30);
  EXPECT_EQ(t->computation_ns + t->exposed_comm_ns + t->exposed_memcpy_ns + t->idle_ns, t->total_ns);
  EXPECT_EQ(t->computation_events, 4);
  EXPECT_EQ(t->comm_events, 1);
  EXPECT_EQ(t->memcpy_events, 1);
  EXPECT_TRUE(t->has_gpu);
  EXPECT_FALSE(t->has_npu);
}

TEST(GpuTimelineTest, CommNamesAnyCaseAndRocmLegacyCopies) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId s = b.StreamTrack(TrackKind::kGpuStream, 0, 0);
  Add(b, s, 0, 10, "RCCL_allreduce", "kernel");
  Add(b, s, 20, 10, "cross_device_reduce_1stage", "kernel");
  Add(b, s, 40, 10, "__amd_rocclr_copyBuffer.kd", "kernel");
  Add(b, s, 60, 10, "__amd_rocclr_fillBufferAligned", "kernel");
  ASSERT_TRUE(b.Finalize().ok());
  std::optional<GpuTimeline> t = ComputeGpuTimeline(trace);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->total_comm_ns, 20);
  EXPECT_EQ(t->total_memcpy_ns, 10);
  EXPECT_EQ(t->computation_ns, 10);
}

TEST(GpuTimelineTest, NoDeviceWorkMeansNoBreakdown) {
  Trace trace;
  TraceBuilder b(&trace);
  Add(b, b.ThreadTrack(1, 1), 0, 10, "aten::mm", "cpu_op");
  ASSERT_TRUE(b.Finalize().ok());
  EXPECT_FALSE(ComputeGpuTimeline(trace).has_value());
}

TEST(GpuTimelineTest, NpuTasksAndHcclCommunication) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId stream = b.StreamTrack(TrackKind::kNpuStream, 0, 2);
  TrackId hccl = b.ChildTrack(b.DeviceTrack(0), TrackKind::kCommunication, b.Intern("Group 0 Communication"));
  StringId task_type = b.Intern("Task Type");
  auto args = [&](std::string_view type) {
    b.args().Add(task_type, Value::String(b.Intern(type)));
    return b.args().Finish();
  };
  Add(b, stream, 0, 100, "Conv2D", "", args("AI_CORE"));
  Add(b, stream, 100, 10, "MEMCPY_ASYNC", "", args("PCIE_DMA_SQE"));
  Add(b, stream, 150, 10, "EVENT_WAIT", "", args("EVENT_WAIT_SQE"));  // not work
  Add(b, hccl, 50, 150, "hcom_allReduce__1", "");
  ASSERT_TRUE(b.Finalize().ok());
  std::optional<GpuTimeline> t = ComputeGpuTimeline(trace);
  ASSERT_TRUE(t.has_value());
  EXPECT_EQ(t->computation_ns, 100);
  EXPECT_EQ(t->exposed_comm_ns, 100);  // [100,200)
  EXPECT_EQ(t->exposed_memcpy_ns, 0);  // hidden behind communication
  EXPECT_EQ(t->total_ns, 200);
  EXPECT_EQ(t->idle_ns, 0);
  EXPECT_TRUE(t->has_npu);
  EXPECT_FALSE(t->has_gpu);
}

TEST(GpuTimelineTest, WindowAndPerStep) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId s = b.StreamTrack(TrackKind::kGpuStream, 0, 0);
  Add(b, s, 0, 100, "k1", "kernel");
  Add(b, s, 150, 100, "k2", "kernel");
  Add(b, s, 300, 50, "ncclKernel", "kernel");
  ASSERT_TRUE(b.Finalize().ok());

  std::optional<GpuTimeline> w = ComputeGpuTimeline(trace, TimeWindow{.start_ns = 100, .end_ns = 200});
  ASSERT_TRUE(w.has_value());
  EXPECT_EQ(w->computation_ns, 50);  // k2 starts inside, clipped at 200
  EXPECT_EQ(w->total_ns, 50);

  DeviceIntervals d = CollectDeviceIntervals(trace);
  std::vector<Step> steps(2);
  steps[0].id = 1;
  steps[0].dur_ns = 200;
  steps[1].id = 2;
  steps[1].start_ns = 200;
  steps[1].dur_ns = 200;
  std::vector<StepGpuTimeline> per = ComputeGpuTimelinePerStep(d, steps);
  ASSERT_EQ(per.size(), 2u);
  EXPECT_EQ(per[0].step_id, 1);
  EXPECT_EQ(per[0].timeline.computation_ns, 150);
  EXPECT_EQ(per[0].timeline.total_ns, 200);
  EXPECT_EQ(per[0].timeline.idle_ns, 50);
  EXPECT_EQ(per[1].timeline.computation_ns, 50);
  EXPECT_EQ(per[1].timeline.exposed_comm_ns, 50);
  EXPECT_EQ(per[1].timeline.idle_ns, 100);
}

}  // namespace
}  // namespace cprof
