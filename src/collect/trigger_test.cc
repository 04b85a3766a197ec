// Trigger expressions, and the flight recorder on a real workload: it fires when every tenth
// step is slow and not when none is.
#include "collect/trigger.h"

#include <gtest/gtest.h>

#include "collect/collect_test_util.h"

namespace cprof {
namespace {

TEST(TriggerTest, ParsesExpressions) {
  auto t = ParseTrigger("p99_latency>200ms");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->metric, TriggerSpec::Metric::kP99Latency);
  EXPECT_EQ(t->op, TriggerSpec::Op::kGreater);
  EXPECT_DOUBLE_EQ(t->threshold, 200e6);
  EXPECT_EQ(t->window_ns, 10 * kNsPerS);
  auto u = ParseTrigger(" latency{span=decode} >= 1.5s over 30s ");
  ASSERT_TRUE(u.ok()) << u.status().message();
  EXPECT_EQ(u->span, "decode");
  EXPECT_EQ(u->op, TriggerSpec::Op::kGreaterEqual);
  EXPECT_EQ(u->window_ns, 30 * kNsPerS);
  auto m = ParseTrigger("mem>2GiB");
  ASSERT_TRUE(m.ok());
  EXPECT_DOUBLE_EQ(m->threshold, 2.0 * 1024 * 1024 * 1024);
  auto g = ParseTrigger("mem>10G");  // the --max-memory syntax
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_DOUBLE_EQ(g->threshold, 10.0 * 1024 * 1024 * 1024);
  auto x = ParseTrigger("mem>10X");
  ASSERT_FALSE(x.ok());
  EXPECT_NE(x.status().message().find("'10X' is not a size"), std::string::npos) << x.status().message();
  EXPECT_TRUE(ParseTrigger("cpu_util<10%").ok());
  // Unknown metrics come from the registry's error, with the list.
  auto bad = ParseTrigger("p99_latenc>200ms");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("p99_latency"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(ParseTrigger("p99_latency>200").ok());   // no unit
  EXPECT_FALSE(ParseTrigger("p99_latency 200ms").ok()); // no operator
  EXPECT_FALSE(ParseTrigger("throughput>5").ok());      // not watchable while collecting
}

TEST(TriggerTest, FiresOnceWhileTrueAndAgainAfterFalse) {
  auto spec = ParseTrigger("p99_latency>100ms over 1s");
  ASSERT_TRUE(spec.ok());
  TriggerEvaluator e({*spec});
  TimeNs t = kNsPerS;
  for (int i = 0; i < 10; ++i) e.OnSpan("ProfilerStep", "step", t + i * 10 * kNsPerMs, 10 * kNsPerMs);
  EXPECT_TRUE(e.Evaluate(t + 100 * kNsPerMs).empty());
  e.OnSpan("ProfilerStep", "step", t + 150 * kNsPerMs, 300 * kNsPerMs);
  auto fired = e.Evaluate(t + 160 * kNsPerMs);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_NE(fired[0].reason.find("p99_latency="), std::string::npos);
  EXPECT_TRUE(e.Evaluate(t + 170 * kNsPerMs).empty());  // still true: not again
  // The slow span leaves the window; the expression turns false, then true again.
  for (int i = 0; i < 10; ++i) e.OnSpan("ProfilerStep", "step", t + 2 * kNsPerS + i, 10 * kNsPerMs);
  EXPECT_TRUE(e.Evaluate(t + 2 * kNsPerS).empty());
  e.OnSpan("ProfilerStep", "step", t + 2 * kNsPerS + 50, 400 * kNsPerMs);
  EXPECT_EQ(e.Evaluate(t + 2 * kNsPerS + 100).size(), 1u);
}

// The reason prints memory in the binary units the threshold was read in (mem>20M is 20 MiB; it
// printed "21.0 MB").
TEST(TriggerTest, MemoryReasonsAreInMiB) {
  auto spec = ParseTrigger("mem>20M over 1s");
  ASSERT_TRUE(spec.ok()) << spec.status().message();
  TriggerEvaluator e({*spec});
  e.OnGauge(TriggerGauge::kRssBytes, kNsPerS, 10.0 * 1048576);
  EXPECT_TRUE(e.Evaluate(kNsPerS).empty());
  e.OnGauge(TriggerGauge::kRssBytes, 2 * kNsPerS + 1, 40.5 * 1048576);
  auto fired = e.Evaluate(2 * kNsPerS + 2);
  ASSERT_EQ(fired.size(), 1u);
  EXPECT_EQ(fired[0].reason.rfind("mem=40.5 MiB > 20.0 MiB over the last", 0), 0u) << fired[0].reason;
}

// A value hovering at the threshold turns the expression false and true again within one window:
// that fired again 17 ms later and wrote mostly the same seconds. Not until the window has passed.
TEST(TriggerTest, NoSecondFiringWithinTheWindow) {
  auto spec = ParseTrigger("mem>20M over 1s");
  ASSERT_TRUE(spec.ok());
  TriggerEvaluator e({*spec});
  const double mib = 1048576;
  e.OnGauge(TriggerGauge::kRssBytes, kNsPerS, 30 * mib);
  EXPECT_EQ(e.Evaluate(kNsPerS).size(), 1u);
  e.OnGauge(TriggerGauge::kRssBytes, kNsPerS + 100 * kNsPerMs, 1 * mib);  // mean 15.5: false, re-armed
  EXPECT_TRUE(e.Evaluate(kNsPerS + 100 * kNsPerMs).empty());
  e.OnGauge(TriggerGauge::kRssBytes, kNsPerS + 200 * kNsPerMs, 40 * mib);  // mean 23.7: true again
  EXPECT_TRUE(e.Evaluate(kNsPerS + 200 * kNsPerMs).empty()) << "fired again within the window";
  e.OnGauge(TriggerGauge::kRssBytes, 2 * kNsPerS + 100 * kNsPerMs, 40 * mib);  // still true, window passed
  EXPECT_EQ(e.Evaluate(2 * kNsPerS + 100 * kNsPerMs).size(), 1u);
}

struct TriggerRun {
  int fired = 0;
  std::vector<Trace> traces;
  std::vector<std::string> reasons;
  int exit_code = -1;
};

TriggerRun RunSteps(const std::string& slow_ms, const std::string& every) {
  CollectOptions o = testing::TestOptions({testing::TestdataBin("cprof_steps"), "60", "10", slow_ms, every});
  o.scope = CollectScope::kFramework;
  auto spec = ParseTrigger("p99_latency>200ms over 2s");
  EXPECT_TRUE(spec.ok());
  o.triggers = {*spec};
  o.trigger_pre_ns = 500 * kNsPerMs;
  o.trigger_post_ns = 300 * kNsPerMs;
  TriggerRun run;
  o.on_trigger_trace = [&](const Trace& t, const TriggerFiring& f, int index) {
    run.traces.push_back(Trace());
    // Keep what the test checks: the steps in the trace.
    run.reasons.push_back(f.reason);
    int steps = 0;
    for (uint32_t i = 0; i < t.slices.size(); ++i) steps += t.Str(t.slices.name_id[i]).rfind("ProfilerStep#", 0) == 0;
    run.fired = index;
    EXPECT_GT(steps, 5);
    return Status::Ok();
  };
  auto c = Collection::Start(o);
  EXPECT_TRUE(c.ok()) << c.status().message();
  if (!c.ok()) return run;
  EXPECT_TRUE((*c)->Run().ok());
  run.exit_code = (*c)->WaitForTarget();
  return run;
}

TEST(TriggerTest, FiresOnAWorkloadWithEveryTenthStepSlow) {
  TriggerRun slow = RunSteps("300", "10");
  EXPECT_EQ(slow.exit_code, 0);
  EXPECT_GE(slow.fired, 1);
  ASSERT_FALSE(slow.reasons.empty());
  EXPECT_NE(slow.reasons[0].find("p99_latency="), std::string::npos) << slow.reasons[0];
}

TEST(TriggerTest, DoesNotFireWithoutSlowSteps) {
  TriggerRun steady = RunSteps("10", "0");
  EXPECT_EQ(steady.exit_code, 0);
  EXPECT_EQ(steady.fired, 0);
}

}  // namespace
}  // namespace cprof
