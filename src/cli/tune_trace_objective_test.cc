// Trace objectives of `tune`: which names are read from a trace, and their values on a small
// TraceBuilder trace with four ProfilerSteps and three `decode` spans.
#include "cli/tune_trace_objective.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace cprof::cli {
namespace {

class TuneTraceObjectiveTest : public ::testing::Test {
 protected:
  void SetUp() override {
    TraceBuilder b(&trace_);
    TrackId cpu = b.ThreadTrack(1, 1);
    // Steps of 10, 20, 30 and 40 ms; decode spans of 1, 2 and 6 ms inside them.
    int64_t ts = 0;
    for (int i = 0; i < 4; ++i) {
      const int64_t dur = (i + 1) * 10'000'000;
      b.AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = cpu, .name_id = b.Intern("ProfilerStep#" + std::to_string(i)),
                  .category_id = b.Intern("user_annotation")});
      if (i < 3)
        b.AddSlice({.ts_ns = ts + 1000, .dur_ns = (i == 2 ? 6 : i + 1) * 1'000'000, .track_id = cpu,
                    .name_id = b.Intern("decode"), .category_id = b.Intern("user_annotation")});
      ts += dur;
    }
    ASSERT_TRUE(b.Finalize().ok());
  }

  double Value(const std::string& name) {
    auto o = ParseTraceObjective(name);
    EXPECT_TRUE(o.ok()) << o.status().message();
    if (!o.ok() || !*o) {
      ADD_FAILURE() << name << " is not a trace objective";
      return -1;
    }
    auto v = (*o)->Value(trace_);
    EXPECT_TRUE(v.ok()) << name << ": " << v.status().message();
    return v.ok() ? *v : -1;
  }

  Trace trace_;
};

TEST_F(TuneTraceObjectiveTest, NamesWithoutParenthesesAreWhatTheCommandPrints) {
  for (const char* name : {"latency_ms", "p99_latency", "throughput", "time"}) {
    auto o = ParseTraceObjective(name);
    ASSERT_TRUE(o.ok()) << name;
    EXPECT_FALSE(o->has_value()) << name;
  }
}

TEST_F(TuneTraceObjectiveTest, StatisticsOfStepsAndSpansInMilliseconds) {
  EXPECT_DOUBLE_EQ(Value("mean(step)"), 25);
  EXPECT_DOUBLE_EQ(Value("median(step)"), 25);
  EXPECT_DOUBLE_EQ(Value("p50(step)"), 25);
  EXPECT_DOUBLE_EQ(Value("p99(step)"), 39.7);  // numpy linear: 30 + 0.97 * 10
  EXPECT_DOUBLE_EQ(Value("p99.9(step)"), 39.97);
  EXPECT_DOUBLE_EQ(Value("p0(step)"), 10);  // the ends are percentiles too (p100 was, p0 was refused)
  EXPECT_DOUBLE_EQ(Value("p100(step)"), 40);
  EXPECT_DOUBLE_EQ(Value("min(step)"), 10);
  EXPECT_DOUBLE_EQ(Value("max(step)"), 40);
  EXPECT_DOUBLE_EQ(Value("sum(step)"), 100);
  EXPECT_DOUBLE_EQ(Value("count(step)"), 4);
  EXPECT_DOUBLE_EQ(Value("mean(decode)"), 3);
  EXPECT_DOUBLE_EQ(Value("max(decode)"), 6);
  EXPECT_DOUBLE_EQ(Value("count(decode)"), 3);
}

TEST_F(TuneTraceObjectiveTest, RegistryMetricsInTheirOwnUnits) {
  EXPECT_DOUBLE_EQ(Value("p99_latency(step)"), 39.7e6);  // ns, as validate reports it
  EXPECT_DOUBLE_EQ(Value("latency(decode)"), 3e6);
  EXPECT_DOUBLE_EQ(Value("throughput(step)"), 40);  // 4 steps in 100 ms
  // Over the wall time the spans cover, the gaps between them counted: 3 decode spans from 1 us
  // to 36.001 ms (1 / mean(decode) said 333 per second).
  EXPECT_NEAR(Value("throughput(decode)"), 3 / 0.036, 0.01);
  // A rate is maximized when the objective gives no direction (throughput(step) was minimized).
  EXPECT_TRUE((*ParseTraceObjective("throughput(step)"))->is_rate());
  EXPECT_FALSE((*ParseTraceObjective("p99_latency(step)"))->is_rate());
  EXPECT_FALSE((*ParseTraceObjective("cpu_util(run)"))->is_rate());
  EXPECT_FALSE((*ParseTraceObjective("p99(step)"))->is_rate());
}

TEST_F(TuneTraceObjectiveTest, WhatTheTraceLacksIsAnErrorNamingIt) {
  auto spans = ParseTraceObjective("p99(prefill)");
  ASSERT_TRUE(spans.ok() && *spans);
  auto v = (*spans)->Value(trace_);
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("no span named 'prefill'"), std::string::npos) << v.status().message();
  // NotFound (the study stops at the first trial when no trial ever has it), naming the spans the
  // trace has, the most frequent first: a misspelt name shows the right one.
  EXPECT_EQ(v.status().code(), StatusCode::kNotFound);
  // Numbered names count as one (ProfilerStep#0 ... #999 hid every other name).
  EXPECT_NE(v.status().message().find("(it has: ProfilerStep#N, decode)"), std::string::npos)
      << v.status().message();

  // A registry metric over a missing span says the same, not "no steps".
  auto rate = ParseTraceObjective("throughput(prefill)");
  ASSERT_TRUE(rate.ok() && *rate);
  auto r = (*rate)->Value(trace_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no span named 'prefill'"), std::string::npos) << r.status().message();

  // Counting nothing is 0, not an error.
  EXPECT_DOUBLE_EQ(Value("count(prefill)"), 0);

  // A whole-run metric the trace has no series for names what it lacks.
  auto mem = ParseTraceObjective("cpu_util(run)");
  ASSERT_TRUE(mem.ok() && *mem);
  auto m = (*mem)->Value(trace_);
  ASSERT_FALSE(m.ok());
  EXPECT_NE(m.status().message().find("no counter track for 'cpu_util'"), std::string::npos) << m.status().message();
}

// A run that marks no steps: frames rebuilt from Python stack samples (`trace`'s "python
// (sampled)" track) are neither steps nor spans to measure, however often they repeat, and the
// near-miss of a misspelt name is listed first.
TEST(TuneTraceObjectiveSampledTest, SampledFramesAreNotStepsOrSpans) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId cpu = b.ThreadTrack(1, 1);
  TrackId sampled = b.ChildTrack(cpu, TrackKind::kThread, b.Intern("python (sampled)"));
  const StringId python = b.Intern("python_function");
  for (int i = 0; i < 5; ++i)
    b.AddSlice({.ts_ns = i * 30'000'000, .dur_ns = 20'000'000 + i, .track_id = sampled,
                .name_id = b.Intern("<frozen importlib._bootstrap>"), .category_id = python});
  for (int i = 0; i < 3; ++i)
    b.AddSlice({.ts_ns = 200'000'000 + i * 30'000'000, .dur_ns = 10'000'000, .track_id = sampled,
                .name_id = b.Intern("decode"), .category_id = python});
  b.AddSlice({.ts_ns = 300'000'000, .dur_ns = 10'000'000, .track_id = cpu, .name_id = b.Intern("prefill"),
              .category_id = b.Intern("user_annotation")});
  b.AddSlice({.ts_ns = 320'000'000, .dur_ns = 10'000'000, .track_id = cpu, .name_id = b.Intern("decodeX"),
              .category_id = b.Intern("user_annotation")});
  ASSERT_TRUE(b.Finalize().ok());

  auto step = ParseTraceObjective("p99(step)");
  ASSERT_TRUE(step.ok() && *step);
  auto v = (*step)->Value(trace);
  ASSERT_FALSE(v.ok()) << "steps from sampled frames: " << *v;
  EXPECT_EQ(v.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(v.status().message().find("frozen"), std::string::npos) << v.status().message();

  auto decode = ParseTraceObjective("mean(decode)");
  ASSERT_TRUE(decode.ok() && *decode);
  auto d = (*decode)->Value(trace);
  ASSERT_FALSE(d.ok()) << "the sampled 'decode' frame was measured: " << *d;
  EXPECT_NE(d.status().message().find("(it has: decodeX, prefill)"), std::string::npos) << d.status().message();
}

TEST_F(TuneTraceObjectiveTest, MalformedNamesAreClearErrors) {
  const std::pair<const char*, const char*> cases[] = {
      {"p200(step)", "not a percentile"},
      {"avg(step)", "unknown function 'avg'"},
      {"p99()", "FUNCTION(SPANS)"},
      {"p99(step", "FUNCTION(SPANS)"},
      {"cpu_util(step)", "cpu_util(run)"},
      {"p99_latency(run)", "p99_latency(step)"},
      {"mean(run)", "over spans"},
      {"device_util(run)", "no device work"},  // trace has no CUDA or NPU collector
  };
  for (const auto& [name, says] : cases) {
    auto o = ParseTraceObjective(name);
    ASSERT_FALSE(o.ok()) << name;
    EXPECT_EQ(o.status().code(), StatusCode::kInvalidInput) << name;
    EXPECT_NE(o.status().message().find(says), std::string::npos) << name << ": " << o.status().message();
  }
}

}  // namespace
}  // namespace cprof::cli
