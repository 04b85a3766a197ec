// The SDK from C, C++ and Python, traced with no change to the programs.
#include <gtest/gtest.h>

#include <set>

#include "collect/collect_test_util.h"

namespace cprof {
namespace {

using testing::Collected;
using testing::RunCollect;
using testing::SlicesNamed;
using testing::TestOptions;

TEST(SdkTest, FromC) {
  CollectOptions o = TestOptions({testing::TestdataBin("cprof_sdk_c"), "3"});
  o.scope = CollectScope::kFramework;
  Collected c = RunCollect(o);
  ASSERT_TRUE(c.status.ok()) << c.status.message();
  EXPECT_EQ(c.exit_code, 3);
  const Trace& t = c.trace;
  auto outer = SlicesNamed(t, "c_outer"), inner = SlicesNamed(t, "c_inner");
  ASSERT_EQ(outer.size(), 5u);
  ASSERT_EQ(inner.size(), 5u);
  EXPECT_EQ(t.slices.parent_id[inner[0]], SliceId{outer[0]});
  EXPECT_GE(t.slices.dur_ns[inner[0]], 2 * kNsPerMs);
  EXPECT_GE(t.slices.dur_ns[outer[0]], t.slices.dur_ns[inner[0]]);
  for (int s = 0; s < 5; ++s) EXPECT_EQ(SlicesNamed(t, "ProfilerStep#" + std::to_string(s)).size(), 1u) << s;
  auto ended = SlicesNamed(t, "ProfilerStep#5");
  ASSERT_EQ(ended.size(), 1u);
  EXPECT_GE(t.slices.dur_ns[ended[0]], 6 * kNsPerMs);
  EXPECT_LT(t.slices.dur_ns[ended[0]], 20 * kNsPerMs);
  EXPECT_EQ(SlicesNamed(t, "c_done").size(), 1u);
  EXPECT_TRUE(testing::Contains(testing::CounterTrackNames(t), "c_queue_depth"));
  EXPECT_EQ(t.MetadataText("sdk_language"), "c");
  TrackId track = t.slices.track_id[outer[0]];
  EXPECT_EQ(t.Str(t.tracks.name_id[Index(track)]), "c-main");
  // Timestamps are CLOCK_MONOTONIC, inside the collection's span.
  EXPECT_GE(t.slices.ts_ns[outer[0]], std::stoll(t.MetadataText("target_start_ns")));
}

TEST(SdkTest, FromCppOnTwoThreads) {
  CollectOptions o = TestOptions({testing::TestdataBin("cprof_sdk_cpp")});
  o.scope = CollectScope::kFramework;
  Collected c = RunCollect(o);
  ASSERT_TRUE(c.status.ok()) << c.status.message();
  auto work = SlicesNamed(c.trace, "cpp_work");
  EXPECT_EQ(work.size(), 40u);
  EXPECT_EQ(SlicesNamed(c.trace, "cpp_inner").size(), 40u);
  std::set<TrackId> threads;
  for (uint32_t r : work) threads.insert(c.trace.slices.track_id[r]);
  EXPECT_EQ(threads.size(), 2u);
  EXPECT_TRUE(testing::Contains(testing::CounterTrackNames(c.trace), "cpp_items"));
}

TEST(SdkTest, FromPython) {
  CollectOptions o = TestOptions({"/usr/bin/python3", testing::TestdataSrc("sdk_script.py")});
  o.scope = CollectScope::kFramework;
  Collected c = RunCollect(o);
  ASSERT_TRUE(c.status.ok()) << c.status.message();
  EXPECT_EQ(c.exit_code, 0);
  auto outer = SlicesNamed(c.trace, "py_outer");
  ASSERT_EQ(outer.size(), 4u);
  auto deco = SlicesNamed(c.trace, "py_decorated");
  ASSERT_EQ(deco.size(), 4u);
  EXPECT_EQ(c.trace.slices.parent_id[deco[0]], SliceId{outer[0]});
  EXPECT_EQ(SlicesNamed(c.trace, "ProfilerStep#2").size(), 1u);
  // The last step, which no later step closes, ends with its thread's last work (py_outer #3),
  // not with the process (a GC pause and 200 ms of sleep follow; it used to take them in).
  auto last = SlicesNamed(c.trace, "ProfilerStep#3");
  ASSERT_EQ(last.size(), 1u);
  EXPECT_EQ(c.trace.slices.ts_ns[last[0]] + c.trace.slices.dur_ns[last[0]],
            c.trace.slices.ts_ns[outer[3]] + c.trace.slices.dur_ns[outer[3]]);
  // Steps the program ends (a `with cprof.step(i)` block, cprof.step_end()) take the untraced
  // 30 ms sleep in them and not the 50 ms after step_end.
  for (const char* name : {"ProfilerStep#10", "ProfilerStep#11"}) {
    auto ended = SlicesNamed(c.trace, name);
    ASSERT_EQ(ended.size(), 1u) << name;
    EXPECT_GE(c.trace.slices.dur_ns[ended[0]], 30'000'000) << name;
    EXPECT_LT(c.trace.slices.dur_ns[ended[0]], 75'000'000) << name;
  }
  EXPECT_TRUE(testing::Contains(testing::CounterTrackNames(c.trace), "py_items"));
  EXPECT_EQ(c.trace.MetadataText("sdk_language"), "python");
  EXPECT_FALSE(c.trace.MetadataText("python_version").empty());
  // The shim's garbage-collection spans.
  auto gc = SlicesNamed(c.trace, "gc.collect gen2");
  ASSERT_FALSE(gc.empty());
  EXPECT_EQ(c.trace.Str(c.trace.slices.category_id[gc[0]]), "gc");
}

}  // namespace
}  // namespace cprof
