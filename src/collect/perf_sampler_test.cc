// CPU samples of a real program with known hot functions: every thread and forked child is
// sampled, stacks are unwound with frame pointers and, where there are none, with DWARF.
#include "collect/perf_sampler.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

#include "collect/collect_test_util.h"

namespace cprof {
namespace {

using testing::Collected;
using testing::RunCollect;
using testing::SampleStack;
using testing::TestOptions;

// For each hot function: how many samples have it innermost-but-one-or-two, and one stack.
std::map<std::string, std::vector<std::string>> HotStacks(const Trace& t, std::map<std::string, int>* counts,
                                                          std::set<int64_t>* pids) {
  std::map<std::string, std::vector<std::string>> example;
  for (uint32_t i = 0; i < t.samples.size(); ++i) {
    std::vector<std::string> stack = SampleStack(t, i);
    for (const std::string& f : stack) {
      if (f.rfind("cprof_test_hot_", 0) == 0) {
        ++(*counts)[f];
        example.try_emplace(f, stack);
        pids->insert(t.tracks.pid[Index(t.samples.track_id[i])]);
        break;
      }
    }
  }
  return example;
}

void ExpectHotFunctions(const Collected& c) {
  ASSERT_TRUE(c.status.ok()) << c.status.message();
  ASSERT_EQ(c.exit_code, 0);
  ASSERT_GT(c.trace.samples.size(), 50u);
  std::map<std::string, int> counts;
  std::set<int64_t> pids;
  auto stacks = HotStacks(c.trace, &counts, &pids);
  // ~0.5 s of CPU each at 199 Hz: expect most of the ~100 samples, leave room for a busy machine.
  std::string some;  // a few stacks, to see what went wrong
  for (uint32_t i = 0; i < c.trace.samples.size() && i < 400; i += 40) {
    for (const auto& f : SampleStack(c.trace, i)) some += f + " < ";
    some += "\n";
  }
  for (const char* f : {"cprof_test_hot_main", "cprof_test_hot_thread", "cprof_test_hot_child"}) {
    EXPECT_GT(counts[f], 10) << f << "\n" << some;
  }
  EXPECT_GE(pids.size(), 2u) << "the forked child's samples are in their own process";
  // Callers above the hot function: the spin loop below it, the caller and main above it.
  const auto& main_stack = stacks["cprof_test_hot_main"];
  ASSERT_FALSE(main_stack.empty());
  std::string joined;
  for (const auto& f : main_stack) joined += f + " < ";
  EXPECT_NE(std::find(main_stack.begin(), main_stack.end(), "cprof_test_caller"), main_stack.end()) << joined;
  EXPECT_NE(std::find(main_stack.begin(), main_stack.end(), "main"), main_stack.end()) << joined;
}

TEST(PerfSamplerTest, HotFunctionsWithFramePointers) {
  CollectOptions o = TestOptions({testing::TestdataBin("cprof_hot_fp"), "0.5"});
  o.scope = CollectScope::kHost;
  ExpectHotFunctions(RunCollect(o));
}

TEST(PerfSamplerTest, HotFunctionsWithoutFramePointersThroughDwarfUnwinding) {
  CollectOptions o = TestOptions({testing::TestdataBin("cprof_hot_nofp"), "0.5"});
  o.scope = CollectScope::kHost;
  Collected c = RunCollect(o);
  ExpectHotFunctions(c);
}

TEST(PerfSamplerTest, HardwareCountersReportedWhenUnavailable) {
  CollectOptions o = TestOptions({"true"});
  o.scope = CollectScope::kHost;
  Collected c = RunCollect(o);
  ASSERT_TRUE(c.status.ok()) << c.status.message();
  // Either the PMU gave counters, or the trace and the warnings say it did not.
  bool have = testing::Contains(testing::CounterTrackNames(c.trace), "hw.cycles.per_s");
  if (c.trace.stats.Get(ImportStat::collect_hw_counters_unavailable) > 0) {
    bool warned = false;
    for (const auto& w : c.warnings) warned |= w.find("hardware counters") != std::string::npos;
    EXPECT_TRUE(warned);
  } else {
    EXPECT_TRUE(have || c.trace.samples.size() == 0);
  }
  // Requiring them where they cannot be opened is an error, not a silent gap.
  o.require_hardware_counters = true;
  Collected r = RunCollect(o);
  if (c.trace.stats.Get(ImportStat::collect_hw_counters_unavailable) > 0) {
    EXPECT_EQ(r.status.code(), StatusCode::kUnavailable);
  }
}

}  // namespace
}  // namespace cprof
