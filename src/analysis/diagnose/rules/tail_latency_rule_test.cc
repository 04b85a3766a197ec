// tail_latency on synthetic traces: one op slow in the slow steps, steady steps, and a
// --threshold that picks the slow steps.
#include "analysis/diagnose/diagnose.h"
#include "analysis/diagnose/rules/rule_test_util.h"

namespace cprof {
namespace {

using testing::RunRule;
using testing::SyntheticTrace;

// 10 steps; steps 4 and 8 run aten::index for 900 us instead of 100 us.
const Trace& Build(SyntheticTrace& s) {
  int64_t t = 0;
  for (int step = 0; step < 10; ++step) {
    const bool slow = step == 4 || step == 8;
    const int64_t idx = slow ? 900'000 : 100'000;
    const int64_t dur = 500'000 + idx;
    s.Step(t, dur, step);
    s.Op(t, 400'000, "aten::mm");
    s.Op(t + 400'000, idx, "aten::index");
    s.Op(t + 400'000 + idx, 90'000, "aten::add");
    t += dur;
  }
  return s.Finish();
}

TEST(TailLatencyRuleTest, AttributesTheSlowStepsToTheOpThatGrew) {
  SyntheticTrace s;
  const Trace& trace = Build(s);
  DiagnoseOptions directed;
  directed.problem = Problem::kHighP99Latency;
  directed.slow_threshold_ns = 1'000'000;
  directed.threshold_text = "p99>1ms";
  std::vector<Finding> f = RunRule(*MakeTailLatencyRule(), trace, directed);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].category, Category::kTailLatency);
  EXPECT_EQ(f[0].metrics[0].value, 2);           // slow steps
  EXPECT_EQ(f[0].metrics[2].value, 1'400'000);   // slow mean
  EXPECT_EQ(f[0].metrics[3].value, 600'000);     // fast mean
  EXPECT_EQ(f[0].metrics[8].name, "excess_ns:aten::index");
  EXPECT_EQ(f[0].metrics[8].value, 800'000);
  EXPECT_NE(f[0].title.find("aten::index"), std::string::npos);
  EXPECT_EQ(f[0].events[0].name, "ProfilerStep#4");
  EXPECT_EQ(f[0].events[1].name, "aten::index");
  EXPECT_EQ(f[0].events[1].dur_ns, 900'000);
  EXPECT_EQ(f[0].saving_ns, 2 * 800'000);
  EXPECT_GT(f[0].confidence, 0.5);
}

// A --threshold above every step: no finding, and the diagnosis says why instead of looking healthy.
TEST(TailLatencyRuleTest, AThresholdNoStepExceedsIsANoteOfTheDiagnosis) {
  SyntheticTrace s;
  const Trace& trace = Build(s);
  DiagnoseOptions o;
  o.problem = Problem::kHighP99Latency;
  o.slow_threshold_ns = 2'000'000'000;
  o.threshold_text = "p99>2.0s";
  EXPECT_TRUE(RunRule(*MakeTailLatencyRule(), trace, o).empty());
  Diagnosis d = Diagnose(trace, o);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0], "--threshold p99>2.0s: no step is slower (the slowest of 10 takes 1.400 ms); nothing to "
                        "compare the fast steps with");
  o.slow_threshold_ns = 1'000'000;  // two steps are slower: no note
  EXPECT_TRUE(Diagnose(trace, o).notes.empty());
  // Below every step: no fast step to compare with, said too.
  o.slow_threshold_ns = 1'000;
  o.threshold_text = "p99>1us";
  d = Diagnose(trace, o);
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].rfind("--threshold p99>1us: every step is slower (the fastest of 10 takes ", 0), 0u) << d.notes[0];
}

TEST(TailLatencyRuleTest, SteadyStepsDoNotFire) {
  SyntheticTrace s;
  int64_t t = 0;
  for (int step = 0; step < 10; ++step) {
    const int64_t dur = 1'000'000 + step * 1'000;  // within 1%
    s.Step(t, dur, step);
    s.Op(t, dur - 10'000, "aten::mm");
    t += dur;
  }
  const Trace& trace = s.Finish();
  EXPECT_TRUE(RunRule(*MakeTailLatencyRule(), trace).empty());
  DiagnoseOptions directed;
  directed.problem = Problem::kHighP99Latency;
  EXPECT_TRUE(RunRule(*MakeTailLatencyRule(), trace, directed).empty());
}

// A loaded machine stretches whole steps: every op of steps 3 and 7 runs 2.5x as long. No op
// grew more than the others, so no operator explains the tail.
TEST(TailLatencyRuleTest, UniformSlowdownNamesNoCause) {
  SyntheticTrace s;
  int64_t t = 0;
  for (int step = 0; step < 10; ++step) {
    const int64_t k = (step == 3 || step == 7) ? 5 : 2;  // x2.5
    const int64_t dur = k * 500'000;
    s.Step(t, dur, step);
    s.Op(t, k * 200'000, "aten::mm");
    s.Op(t + k * 200'000, k * 150'000, "aten::index");
    s.Op(t + k * 350'000, k * 140'000, "aten::add");
    t += dur;
  }
  const Trace& trace = s.Finish();
  EXPECT_TRUE(RunRule(*MakeTailLatencyRule(), trace).empty());
}

}  // namespace
}  // namespace cprof
