// validate and compare analyses on small TraceBuilder traces: op map rules, op alignment and
// deltas, per-step metric values, verdict rules, run-as-unit mode.
#include <cmath>

#include <gtest/gtest.h>

#include "analysis/compare/op_map.h"
#include "analysis/compare/run_metrics.h"
#include "analysis/compare/trace_diff.h"
#include "analysis/compare/validation.h"
#include "model/trace_builder.h"
#include "stats/metric_registry.h"
#include "stats/random.h"

namespace cprof {
namespace {

// A training-like trace: `steps` ProfilerSteps of about `step_us` with noise, each holding a
// conv (shapes in "Input Dims") and a relu; `extra_op` adds a new op in every step.
Trace MakeRun(uint64_t seed, int steps, double step_us, double noise_us, bool extra_op = false,
              double relu_us = 100) {
  Trace t;
  TraceBuilder b(&t);
  Random rng(seed);
  const TrackId cpu = b.ThreadTrack(1, 1);
  const StringId cat = b.Intern("cpu_op");
  const StringId dims = b.Intern("Input Dims");
  int64_t ts = 1000;
  for (int i = 0; i < steps; ++i) {
    const double u = static_cast<double>(rng.Next() >> 11) * 0x1.0p-53 - 0.5;
    const int64_t dur = static_cast<int64_t>((step_us + 2 * noise_us * u) * 1000);
    b.AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = cpu, .name_id = b.Intern("ProfilerStep#" + std::to_string(i)),
                .category_id = b.Intern("user_annotation")});
    b.args().Add(dims, Value::String(b.Intern("[[16, 3, 32, 32], [32, 3, 3, 3]]")));
    const ArgSetId a = b.args().Finish();
    b.AddSlice({.ts_ns = ts + 10, .dur_ns = dur / 2, .track_id = cpu, .name_id = b.Intern("aten::conv2d"),
                .category_id = cat, .arg_set_id = a});
    b.AddSlice({.ts_ns = ts + 20, .dur_ns = dur / 4, .track_id = cpu, .name_id = b.Intern("aten::convolution"),
                .category_id = cat});
    b.AddSlice({.ts_ns = ts + dur / 2 + 100, .dur_ns = static_cast<int64_t>(relu_us * 1000), .track_id = cpu,
                .name_id = b.Intern("aten::relu"), .category_id = cat});
    if (extra_op)
      b.AddSlice({.ts_ns = ts + dur - 5000, .dur_ns = 4000, .track_id = cpu, .name_id = b.Intern("aten::copy_"),
                  .category_id = cat});
    ts += dur + 50'000;
  }
  EXPECT_TRUE(b.Finalize().ok());
  return t;
}

// A registry as on a machine that can measure everything, so the tests do not depend on the host.
MetricInfo Metric(const char* name) {
  MachineCapabilities caps;
  caps.hardware_pmu = caps.procfs = true;
  MetricRegistry reg(caps);
  StatusOr<const MetricInfo*> m = reg.Find(name);
  EXPECT_TRUE(m.ok()) << name;
  return m.ok() ? **m : MetricInfo{};
}

TEST(OpMap, ParsesRulesSidesAndComments) {
  StatusOr<OpMap> m = OpMap::Parse(
      "# cross-hardware\n"
      ".*gemm.* => MatMul\n"
      "baseline: nccl.* => AllReduce   # CUDA side\n"
      "target: hcom_allReduce.* => AllReduce\n\n",
      "ops.map");
  ASSERT_TRUE(m.ok()) << m.status().message();
  EXPECT_EQ(m->size(), 3u);
  EXPECT_EQ(m->Apply(OpMap::Side::kBaseline, "volta_sgemm_128x64_nn"), "MatMul");
  EXPECT_EQ(m->Apply(OpMap::Side::kTarget, "ncclAllReduce"), "ncclAllReduce");
  EXPECT_EQ(m->Apply(OpMap::Side::kBaseline, "ncclAllReduce"), "AllReduce");
  EXPECT_EQ(m->Apply(OpMap::Side::kTarget, "hcom_allReduce_123"), "AllReduce");
  EXPECT_EQ(m->Apply(OpMap::Side::kTarget, "aten::add"), "aten::add");

  StatusOr<OpMap> bad = OpMap::Parse("a => b\n([ => c\n", "x.map");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("x.map:2"), std::string::npos) << bad.status().message();
  EXPECT_FALSE(OpMap::Parse("just text\n", "y.map").ok());
}

TEST(TraceDiff, AlignsOpsAndFindsNewOnes) {
  const Trace base = MakeRun(1, 12, 1000, 20);
  const Trace target = MakeRun(2, 12, 1000, 20, /*extra_op=*/true, /*relu_us=*/300);
  const TraceDiff d = DiffTraces(base, target, {});
  EXPECT_EQ(d.baseline.steps.size(), 12u);
  EXPECT_EQ(d.new_ops, 1);
  EXPECT_EQ(d.vanished_ops, 0);
  // relu: +200 us per step, the biggest self-time regression, significant per step.
  ASSERT_FALSE(d.top_regressions.empty());
  const OpDiff& top = d.ops[d.top_regressions[0]];
  EXPECT_EQ(top.name, "aten::relu");
  EXPECT_EQ(top.delta_self_ns, 12 * 200'000);
  EXPECT_TRUE(top.tested);
  EXPECT_EQ(top.test_unit, "per-step total");
  EXPECT_TRUE(top.significant);
  EXPECT_NEAR(top.hodges_lehmann_ns, 200'000, 1);
  EXPECT_TRUE(top.sequence_aligned);
  // The conv carries its shapes; convolution has none.
  bool conv_seen = false;
  for (const OpDiff& op : d.ops) {
    if (op.name == "aten::conv2d") {
      conv_seen = true;
      EXPECT_EQ(op.shapes, "[[16,3,32,32],[32,3,3,3]]");
      EXPECT_EQ(op.baseline.count, 12);
    }
    if (op.name == "aten::copy_") {
      EXPECT_EQ(op.presence, OpPresence::kNew);
      EXPECT_EQ(op.target.count, 12);
    }
  }
  EXPECT_TRUE(conv_seen);
  ASSERT_TRUE(d.step_time.has_value());
  EXPECT_GT(d.step_time->change_pct, 0);
  // Categories add up self time: user_annotation (the steps' own time) and cpu_op.
  ASSERT_GE(d.categories.size(), 2u);
}

TEST(TraceDiff, OpMapMergesNamesAcrossTraces) {
  const Trace base = MakeRun(1, 6, 1000, 20);
  const Trace target = MakeRun(1, 6, 1000, 20);
  StatusOr<OpMap> m = OpMap::Parse("baseline: aten::relu => Relu\ntarget: aten::relu => Relu\n", "m");
  ASSERT_TRUE(m.ok());
  TraceDiffOptions opt;
  opt.op_map = &*m;
  const TraceDiff d = DiffTraces(base, target, opt);
  bool found = false;
  for (const OpDiff& op : d.ops) {
    if (op.name != "Relu") continue;
    found = true;
    EXPECT_EQ(op.presence, OpPresence::kBoth);
    EXPECT_EQ(op.baseline_names, std::vector<std::string>{"aten::relu"});
  }
  EXPECT_TRUE(found);
}

TEST(TraceDiff, TimeWindowsOfOneTrace) {
  const Trace t = MakeRun(3, 20, 1000, 20);
  TraceDiffOptions opt;
  opt.baseline_window = {t.start_ns, t.start_ns + 10 * 1'050'000};
  opt.target_window = {t.start_ns + 10 * 1'050'000, t.end_ns + 1};
  const TraceDiff d = DiffTraces(t, t, opt);
  EXPECT_EQ(d.baseline.steps.size() + d.target.steps.size(), 20u);
  EXPECT_EQ(d.new_ops, 0);
}

TEST(RunMetrics, StepValuesAndRunValues) {
  const Trace t = MakeRun(4, 10, 1000, 0);
  const std::vector<Step> steps = DetectSteps(t);
  ASSERT_EQ(steps.size(), 10u);
  StatusOr<std::vector<double>> v = StepValues(t, steps, Metric("step_time"), {});
  ASSERT_TRUE(v.ok());
  EXPECT_EQ(v->size(), 10u);
  EXPECT_NEAR((*v)[0], 1e6, 1);
  StatusOr<double> thr = RunValue(t, steps, Metric("throughput"), {.items_per_step = 32});
  ASSERT_TRUE(thr.ok());
  EXPECT_NEAR(*thr, 32 * 1000.0, 1e-6);
  // No device work, no memory events: a clear error, not a zero.
  StatusOr<std::vector<double>> du = StepValues(t, steps, Metric("device_util"), {});
  ASSERT_FALSE(du.ok());
  EXPECT_NE(du.status().message().find("no device work"), std::string::npos);
  EXPECT_FALSE(StepValues(t, steps, Metric("mem_peak"), {}).ok());
  EXPECT_EQ(StepStatistic(Metric("p99_latency"), TwoSampleTest::kMannWhitney).Name(), "p99");
}

// mem_peak's source: device memory when the trace has device memory events (the largest device),
// else the process's resident memory, which holds the host allocator's and the rest, else the
// host allocator's total.
TEST(RunMetrics, MemPeakPrefersDeviceMemoryThenResidentMemory) {
  constexpr int64_t kMiB = 1 << 20;
  auto make = [](bool rss, bool device) {
    Trace t;
    TraceBuilder b(&t);
    const TrackId cpu = b.ThreadTrack(1, 1);
    b.AddSlice({.ts_ns = 0, .dur_ns = 1000, .track_id = cpu, .name_id = b.Intern("run")});
    // The host allocator: 10 MiB, freed.
    b.AddMemoryEvent({.ts_ns = 100, .track_id = cpu, .bytes = 10 * kMiB});
    b.AddMemoryEvent({.ts_ns = 200, .track_id = cpu, .bytes = -10 * kMiB});
    if (rss) {  // the process held 300 MiB besides
      const TrackId c = b.ChildTrack(b.ProcessTrack(1), TrackKind::kCounter, b.Intern("rss.bytes"));
      b.AddCounter(c, 100, 40.0 * kMiB);
      b.AddCounter(c, 500, 310.0 * kMiB);
    }
    if (device) {  // two GPUs: 2 GiB and 1 GiB at their peaks
      for (int64_t d : {0, 1}) {
        b.AddMemoryEvent({.ts_ns = 300, .track_id = cpu, .device = d, .bytes = (2 - d) * 1024 * kMiB});
        b.AddMemoryEvent({.ts_ns = 400, .track_id = cpu, .device = d, .bytes = -(2 - d) * 1024 * kMiB});
      }
    }
    EXPECT_TRUE(b.Finalize().ok());
    return t;
  };
  auto peak = [](const Trace& t) {
    StatusOr<double> v = RunValue(t, {}, Metric("mem_peak"), {});
    EXPECT_TRUE(v.ok()) << v.status().message();
    return v.ok() ? *v : -1;
  };
  EXPECT_EQ(peak(make(false, false)), 10.0 * kMiB);
  EXPECT_EQ(peak(make(true, false)), 310.0 * kMiB);
  EXPECT_EQ(peak(make(true, true)), 2048.0 * kMiB);
}

TEST(Validate, DetectsARegressionAndRespectsTheNoiseThreshold) {
  const Trace before = MakeRun(5, 40, 1000, 30);
  const Trace slower = MakeRun(6, 40, 1100, 30);     // +10%
  const Trace slightly = MakeRun(7, 40, 1010, 5);    // +1%: below the 2% threshold
  ValidateOptions opt;
  opt.metrics = {Metric("step_time"), Metric("throughput")};
  opt.resamples = 2000;
  RunSet b{{&before}, {"before"}};
  StatusOr<ValidationResult> r = Validate(b, RunSet{{&slower}, {"slower"}}, opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->verdict, Verdict::kRegressed);
  EXPECT_EQ(r->unit, "step");
  ASSERT_EQ(r->metrics.size(), 2u);
  EXPECT_EQ(r->metrics[0].verdict, Verdict::kRegressed);
  EXPECT_NEAR(r->metrics[0].comparison.change_pct, 10, 2);
  EXPECT_EQ(r->metrics[1].verdict, Verdict::kRegressed);  // throughput went down: also a regression
  EXPECT_LT(r->metrics[1].comparison.change_pct, 0);
  EXPECT_FALSE(r->notes.empty());  // the one-run caveat

  r = Validate(b, RunSet{{&slightly}, {"slightly"}}, opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, Verdict::kUnchanged);
  EXPECT_NE(r->metrics[0].reason.find("noise threshold"), std::string::npos) << r->metrics[0].reason;

  // Faster after: improved.
  r = Validate(RunSet{{&slower}, {"slower"}}, b, opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->verdict, Verdict::kImproved);
}

TEST(Validate, SeveralRunsMakeTheRunTheUnit) {
  std::vector<Trace> runs;
  for (uint64_t s = 0; s < 10; ++s) runs.push_back(MakeRun(100 + s, 8, s < 5 ? 1000 : 1080, 30));
  RunSet before, after;
  for (int i = 0; i < 5; ++i) {
    before.runs.push_back(&runs[i]);
    before.labels.push_back("b" + std::to_string(i));
    after.runs.push_back(&runs[5 + i]);
    after.labels.push_back("a" + std::to_string(i));
  }
  ValidateOptions opt;
  opt.metrics = {Metric("step_time")};
  opt.test = TwoSampleTest::kWelchT;
  StatusOr<ValidationResult> r = Validate(before, after, opt);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->unit, "run");
  EXPECT_EQ(r->metrics[0].comparison.n_before, 5);
  EXPECT_EQ(r->metrics[0].verdict, Verdict::kRegressed);
}

TEST(Validate, BadOptions) {
  const Trace t = MakeRun(1, 5, 1000, 10);
  ValidateOptions opt;
  EXPECT_FALSE(Validate(RunSet{{&t}, {"t"}}, RunSet{{&t}, {"t"}}, opt).ok());  // no metrics
  opt.metrics = {Metric("step_time")};
  opt.alpha = 1.5;
  EXPECT_FALSE(Validate(RunSet{{&t}, {"t"}}, RunSet{{&t}, {"t"}}, opt).ok());
  opt.alpha = 0.05;
  EXPECT_FALSE(Validate(RunSet{}, RunSet{{&t}, {"t"}}, opt).ok());
}

TEST(Validate, Lag1Autocorrelation) {
  EXPECT_NEAR(Lag1Autocorrelation({1, 2, 3, 4, 5, 6, 7, 8}), 0.625, 1e-12);
  EXPECT_NEAR(Lag1Autocorrelation({1, -1, 1, -1, 1, -1}), -5.0 / 6, 1e-12);
  EXPECT_EQ(Lag1Autocorrelation({1, 1, 1}), 0);
}

}  // namespace
}  // namespace cprof
