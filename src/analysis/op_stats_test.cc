// Operator statistics: counts, total and self time, quantiles; host vs device.
#include "analysis/op_stats.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace cprof {
namespace {

void Add(TraceBuilder& b, TrackId t, int64_t ts, int64_t dur, std::string_view name, std::string_view cat) {
  b.AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = t, .name_id = b.Intern(name), .category_id = b.Intern(cat)});
}

const OpStat* Find(const std::vector<OpStat>& ops, std::string_view name) {
  for (const OpStat& o : ops) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

TEST(OpStatsTest, SelfTotalAndQuantiles) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  TrackId gpu = b.StreamTrack(TrackKind::kGpuStream, 0, 7);
  Add(b, cpu, 0, 1000, "ProfilerStep#1", "user_annotation");
  Add(b, cpu, 0, 100, "aten::linear", "cpu_op");
  Add(b, cpu, 10, 60, "aten::addmm", "cpu_op");
  Add(b, cpu, 20, 30, "cudaLaunchKernel", "cuda_runtime");
  Add(b, cpu, 200, 300, "aten::linear", "cpu_op");
  Add(b, cpu, 600, 10, "python_fn", "python_function");
  Add(b, gpu, 50, 40, "sgemm", "kernel");
  Add(b, gpu, 100, 20, "sgemm", "kernel");
  Add(b, gpu, 130, 5, "Memcpy HtoD", "gpu_memcpy");
  Add(b, gpu, 0, 500, "ProfilerStep#1", "gpu_user_annotation");
  ASSERT_TRUE(b.Finalize().ok());

  OpStatsTable ops = ComputeOpStats(trace);
  ASSERT_EQ(ops.cpu.size(), 2u);  // cpu_op only; no ProfilerStep, runtime or python slices
  EXPECT_EQ(ops.cpu[0].name, "aten::linear");
  const OpStat* linear = Find(ops.cpu, "aten::linear");
  ASSERT_NE(linear, nullptr);
  EXPECT_EQ(linear->count, 2);
  EXPECT_EQ(linear->total_ns, 400);
  EXPECT_EQ(linear->self_ns, 40 + 300);
  EXPECT_DOUBLE_EQ(linear->mean_ns, 200);
  EXPECT_DOUBLE_EQ(linear->p50_ns, 200);
  EXPECT_DOUBLE_EQ(linear->p99_ns, 298);
  const OpStat* addmm = Find(ops.cpu, "aten::addmm");
  ASSERT_NE(addmm, nullptr);
  EXPECT_EQ(addmm->self_ns, 30);  // minus the runtime call inside it

  ASSERT_EQ(ops.device.size(), 2u);
  EXPECT_EQ(ops.device[0].name, "sgemm");
  EXPECT_EQ(ops.device[0].total_ns, 60);
  EXPECT_EQ(ops.device[0].min_ns, 20);
  EXPECT_EQ(ops.device[0].max_ns, 40);

  std::vector<OpStat> by_self = TopOps(ops.cpu, OpSortKey::kSelf, 1);
  ASSERT_EQ(by_self.size(), 1u);
  EXPECT_EQ(by_self[0].name, "aten::linear");

  OpStatsTable windowed = ComputeOpStats(trace, TimeWindow{.start_ns = 150, .end_ns = 1000});
  ASSERT_EQ(windowed.cpu.size(), 1u);
  EXPECT_EQ(windowed.cpu[0].count, 1);
  EXPECT_TRUE(windowed.device.empty());
}

TEST(OpStatsTest, WithoutCpuOpCategoryAllHostSlicesCount) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  Add(b, cpu, 0, 100, "aten::zeros", "");
  Add(b, cpu, 10, 50, "aten::empty", "");
  Add(b, cpu, 200, 100, "ProfilerStep#0", "");
  ASSERT_TRUE(b.Finalize().ok());
  OpStatsTable ops = ComputeOpStats(trace);
  ASSERT_EQ(ops.cpu.size(), 2u);
  EXPECT_EQ(Find(ops.cpu, "aten::zeros")->self_ns, 50);
}

}  // namespace
}  // namespace cprof
