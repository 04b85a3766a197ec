// Tests of flame-tree aggregation and the folded / speedscope writers.
#include "export/flame/flame_tree.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "export/flame/folded_stacks.h"
#include "export/flame/speedscope_writer.h"
#include "model/trace_builder.h"

namespace cprof {
namespace {

uint32_t Find(const FlameTree& t, uint32_t parent, std::string_view name) {
  for (uint32_t n = 1; n < t.size(); ++n) {
    if (t.parent[n] == parent && t.name(n) == name) return n;
  }
  return UINT32_MAX;
}

// step#1 [0,100) > mm [10,40) > kernel_launch [20,25); step#2 [100,200) > mm [110,130);
// a device kernel on a stream.
Trace OpsTrace() {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId t = b.ThreadTrack(1, 1);
  TrackId gpu = b.StreamTrack(TrackKind::kGpuStream, 0, 7);
  b.AddSlice({.ts_ns = 0, .dur_ns = 100, .track_id = t, .name_id = b.Intern("ProfilerStep#1")});
  b.AddSlice({.ts_ns = 10, .dur_ns = 30, .track_id = t, .name_id = b.Intern("aten::mm")});
  b.AddSlice({.ts_ns = 20, .dur_ns = 5, .track_id = t, .name_id = b.Intern("cudaLaunchKernel")});
  b.AddSlice({.ts_ns = 100, .dur_ns = 100, .track_id = t, .name_id = b.Intern("ProfilerStep#2")});
  b.AddSlice({.ts_ns = 110, .dur_ns = 20, .track_id = t, .name_id = b.Intern("aten::mm")});
  b.AddSlice({.ts_ns = 30, .dur_ns = 50, .track_id = gpu, .name_id = b.Intern("gemm;kernel")});
  EXPECT_TRUE(b.Finalize().ok());
  return trace;
}

TEST(FlameTreeTest, SliceTreeMergesStepsAndWeighsByTime) {
  Trace trace = OpsTrace();
  FlameTree host = BuildSliceFlameTree(trace, {.tracks = FlameTracks::kHost});
  EXPECT_EQ(host.value[FlameTree::kRoot], 200);
  uint32_t step = Find(host, FlameTree::kRoot, "ProfilerStep#*");
  ASSERT_NE(step, UINT32_MAX);
  EXPECT_EQ(host.value[step], 200);
  uint32_t mm = Find(host, step, "aten::mm");
  ASSERT_NE(mm, UINT32_MAX);
  EXPECT_EQ(host.value[mm], 50);
  EXPECT_EQ(host.value[Find(host, mm, "cudaLaunchKernel")], 5);
  EXPECT_EQ(host.SelfValues()[step], 150);
  EXPECT_EQ(Find(host, FlameTree::kRoot, "gemm;kernel"), UINT32_MAX);  // device work is not host

  FlameTree device = BuildSliceFlameTree(trace, {.tracks = FlameTracks::kDevice});
  EXPECT_EQ(device.value[FlameTree::kRoot], 50);
}

TEST(FlameTreeTest, WindowClipsDurations) {
  Trace trace = OpsTrace();
  FlameTree host = BuildSliceFlameTree(trace, {.tracks = FlameTracks::kHost, .start_ns = 15, .end_ns = 115});
  uint32_t step = Find(host, FlameTree::kRoot, "ProfilerStep#*");
  EXPECT_EQ(host.value[step], 100);
  EXPECT_EQ(host.value[Find(host, step, "aten::mm")], 25 + 5);
}

TEST(FlameTreeTest, SamplesFollowStacksOutermostFirst) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId t = b.ThreadTrack(1, 1);
  FrameId main_f = b.AddFrame({.function_id = b.Intern("main")});
  FrameId work = b.AddFrame({.function_id = b.Intern("work")});
  FrameId anon = b.AddFrame({.module_id = b.Intern("libfoo.so"), .address = 0x1a});
  StackId s1 = b.AddStack(kNoStack, main_f);
  StackId s2 = b.AddStack(s1, work);
  StackId s3 = b.AddStack(s2, anon);
  b.AddSample({.ts_ns = 1, .track_id = t, .stack_id = s2, .weight = 1});
  b.AddSample({.ts_ns = 2, .track_id = t, .stack_id = s3, .weight = 2});
  b.AddSample({.ts_ns = 3, .track_id = t, .stack_id = s1, .weight = 1});
  ASSERT_TRUE(b.Finalize().ok());
  FlameTree tree = BuildSampleFlameTree(trace, {});
  uint32_t m = Find(tree, FlameTree::kRoot, "main");
  uint32_t w = Find(tree, m, "work");
  EXPECT_EQ(tree.value[FlameTree::kRoot], 4);
  EXPECT_EQ(tree.value[m], 4);
  EXPECT_EQ(tree.value[w], 3);
  EXPECT_EQ(tree.value[Find(tree, w, "libfoo.so+0x1a")], 2);
  EXPECT_EQ(FoldedStacks(tree), "main 1\nmain;work 1\nmain;work;libfoo.so+0x1a 2\n");

  FlameTree by_track = BuildSampleFlameTree(trace, {.by_track = true});
  ASSERT_EQ(by_track.parent[1], FlameTree::kRoot);
  EXPECT_EQ(by_track.value[1], 4);  // the track level
}

TEST(FlameTreeTest, BaselineIsMatchedByPath) {
  Trace trace = OpsTrace();
  FlameTree tree = BuildSliceFlameTree(trace, {.tracks = FlameTracks::kHost});
  FlameTree base("base");
  uint32_t step = base.Child(FlameTree::kRoot, "ProfilerStep#*");
  uint32_t only = base.Child(step, "aten::add");
  base.value[FlameTree::kRoot] = base.value[step] = 300;
  base.value[only] = 70;
  AttachBaseline(&tree, base);
  ASSERT_TRUE(tree.has_baseline());
  EXPECT_EQ(tree.baseline[FlameTree::kRoot], 300);
  uint32_t add = Find(tree, Find(tree, FlameTree::kRoot, "ProfilerStep#*"), "aten::add");
  ASSERT_NE(add, UINT32_MAX);
  EXPECT_EQ(tree.value[add], 0);
  EXPECT_EQ(tree.baseline[add], 70);
}

TEST(FlameTreeTest, FoldedEscapesDelimiters) {
  Trace trace = OpsTrace();
  std::string folded = FoldedStacks(BuildSliceFlameTree(trace, {.tracks = FlameTracks::kDevice, .by_track = true}));
  EXPECT_NE(folded.find(";gemm:kernel 50\n"), std::string::npos) << folded;
}

TEST(SpeedscopeTest, EventsNestAndParse) {
  Trace trace = OpsTrace();
  std::string text = SpeedscopeJson(trace, {}, "run <1>");
  nlohmann::json j = nlohmann::json::parse(text);
  EXPECT_EQ(j["name"], "run <1>");
  EXPECT_EQ(text.find("<1>"), std::string::npos);  // escaped as \u003c
  ASSERT_EQ(j["profiles"].size(), 2u);  // the thread and the stream
  const auto& ev = j["profiles"][0]["events"];
  // Every close matches the innermost open frame.
  std::vector<int> stack;
  int64_t last = INT64_MIN;
  for (const auto& e : ev) {
    ASSERT_GE(e["at"].get<int64_t>(), last);
    last = e["at"];
    if (e["type"] == "O") {
      stack.push_back(e["frame"]);
    } else {
      ASSERT_FALSE(stack.empty());
      EXPECT_EQ(stack.back(), e["frame"].get<int>());
      stack.pop_back();
    }
  }
  EXPECT_TRUE(stack.empty());
  EXPECT_EQ(ev.size(), 10u);
}

}  // namespace
}  // namespace cprof
