// Tests of the TraceBuilder's trackers and Finalize().
#include "model/trace_builder.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

TEST(TraceBuilderTest, SortsAndNestsSlicesPerTrack) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId t = b.ThreadTrack(1, 2);
  StringId child = b.Intern("child"), parent = b.Intern("parent");
  b.AddSlice({.ts_ns = 20, .dur_ns = 5, .track_id = t, .name_id = child});
  b.AddSlice({.ts_ns = 10, .dur_ns = 50, .track_id = t, .name_id = parent});
  b.AddSlice({.ts_ns = 60, .dur_ns = 1, .track_id = t, .name_id = parent});  // sibling, touches end
  ASSERT_TRUE(b.Finalize().ok());
  ASSERT_EQ(trace.slices.size(), 3u);
  EXPECT_EQ(trace.slices.name_id[0], parent);
  EXPECT_EQ(trace.slices.depth[1], 1u);
  EXPECT_EQ(trace.slices.parent_id[1], SliceId{0});
  EXPECT_EQ(trace.slices.depth[2], 0u);
  EXPECT_EQ(trace.start_ns, 10);
  EXPECT_EQ(trace.end_ns, 61);
  EXPECT_EQ(trace.tracks.kind[Index(trace.tracks.parent_id[Index(t)])], TrackKind::kProcess);
}

TEST(TraceBuilderTest, CountsImproperNestingAndUnmatchedEnds) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId t = b.ThreadTrack(1, 1);
  b.AddSlice({.ts_ns = 0, .dur_ns = 10, .track_id = t});
  b.AddSlice({.ts_ns = 5, .dur_ns = 10, .track_id = t});
  EXPECT_EQ(b.EndSlice(t, 100), kNoSlice);
  b.BeginSlice({.ts_ns = 30, .track_id = t});
  ASSERT_TRUE(b.Finalize().ok());
  EXPECT_EQ(trace.stats.Get(ImportStat::slice_improper_nesting), 1);
  EXPECT_EQ(trace.stats.Get(ImportStat::unmatched_end), 1);
  EXPECT_EQ(trace.stats.Get(ImportStat::unclosed_begin), 1);
}

TEST(TraceBuilderTest, BindsFlowEndpointsToEnclosingAndNextSlices) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  TrackId gpu = b.StreamTrack(TrackKind::kGpuStream, 0, 7);
  b.AddSlice({.ts_ns = 100, .dur_ns = 10, .track_id = gpu, .name_id = b.Intern("kernel")});
  b.AddSlice({.ts_ns = 0, .dur_ns = 20, .track_id = cpu, .name_id = b.Intern("launch")});
  b.AddFlowEndpoint({.track = cpu, .ts_ns = 5, .key = 42, .phase = FlowEndpoint::Phase::kStart,
                     .kind = FlowKind::kLaunch});
  b.AddFlowEndpoint({.track = gpu, .ts_ns = 90, .key = 42, .phase = FlowEndpoint::Phase::kEnd,
                     .bind_enclosing = false, .kind = FlowKind::kLaunch});
  b.AddFlowEndpoint({.track = gpu, .ts_ns = 500, .key = 43, .phase = FlowEndpoint::Phase::kEnd});
  ASSERT_TRUE(b.Finalize().ok());
  ASSERT_EQ(trace.flows.size(), 1u);
  EXPECT_EQ(trace.Str(trace.slices.name_id[Index(trace.flows.out_slice_id[0])]), "launch");
  EXPECT_EQ(trace.Str(trace.slices.name_id[Index(trace.flows.in_slice_id[0])]), "kernel");
  EXPECT_EQ(trace.stats.Get(ImportStat::flow_unbound), 1);  // ts 500 encloses nothing
}

TEST(ArgTableTest, SetsAreContiguousAndEmptySetsAreNoArgs) {
  ArgTable args;
  EXPECT_EQ(args.Finish(), kNoArgs);
  args.Add(StringId{1}, Value::Int(3));
  args.Add(StringId{2}, Value::Double(0.5));
  ArgSetId a = args.Finish();
  args.Add(StringId{1}, Value::Int(4));
  ArgSetId c = args.Finish();
  EXPECT_EQ(args.end(a) - args.begin(a), 2u);
  EXPECT_EQ(args.Find(c, StringId{1})->i, 4);
  EXPECT_FALSE(args.Find(a, StringId{9}).has_value());
}

}  // namespace
}  // namespace cprof
