// Guidance from a diagnose report: categories map to knobs, weak findings are ignored. The report
// itself is read by report/diagnose's reader (the CLI's tune tests read real reports).
#include "tune/diagnosis_guidance.h"

#include <gtest/gtest.h>

namespace cprof::tune {
namespace {

ReportedRun Traced(std::string device, std::vector<ReportedFinding> findings, std::string torch_version = "") {
  return ReportedRun{.device = std::move(device), .torch_version = std::move(torch_version), .findings = std::move(findings)};
}

// What `diagnose` reported of a CPU run, in rank order.
const ReportedRun kReport = Traced("cpu", {{"layout_conversion", 0.81, "18% of step time in contiguous copies", {}},
                                        {"fusion_candidate", 0.6, "GELU decomposed into 5 ops", {}},
                                        {"launch_overhead", 0.7, "many tiny ops", {}},
                                        {"thread_oversubscription", 0.1, "weak", {}},
                                        {"tail_latency", 0.9, "no knob for this", {}}});

TEST(DiagnosisGuidanceTest, CategoriesBecomeKnobsWithTodayAsTheStart) {
  StatusOr<DiagnosisGuidance> g = GuidanceFor(kReport, "r.yaml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->space.params.size(), 2u);  // memory_format, compile_mode (once, for two findings)
  EXPECT_EQ(g->space.params[0].name, "memory_format");
  EXPECT_EQ(g->space.params[1].name, "compile_mode");
  EXPECT_EQ(std::get<std::string>(g->start.at("memory_format")), "contiguous_format");
  EXPECT_EQ(std::get<std::string>(g->start.at("compile_mode")), "none");
  EXPECT_EQ(g->why.at("compile_mode"), "launch_overhead: many tiny ops");  // the more confident one
  EXPECT_EQ(g->why.count("num_threads"), 0u);  // below kMinGuidanceConfidence
  EXPECT_TRUE(SearchSpace::Create(g->space).ok());
  // Each finding's standard fix, in a space file's `fixes:` form (the guided start without --space).
  EXPECT_EQ(g->fixes.at("layout_conversion").at("memory_format"), Value{"channels_last"});
  EXPECT_EQ(g->fixes.at("launch_overhead").at("compile_mode"), Value{"default"});
  EXPECT_EQ(g->fixes.count("thread_oversubscription"), 0u);
  EXPECT_EQ(g->fixes.count("tail_latency"), 0u);
}

// device_idle is a symptom: the input pipeline's and the launch knobs are searched, and no fix is
// assumed (the rule that names the cause gives one).
TEST(DiagnosisGuidanceTest, DeviceIdleSearchesInputAndLaunchKnobsWithoutAFix) {
  StatusOr<DiagnosisGuidance> g = GuidanceFor(Traced("gpu", {{"device_idle", 0.8, "idle", {}}}), "i.yaml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  std::vector<std::string> names;
  for (const Parameter& p : g->space.params) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"num_workers", "pin_memory", "compile_mode"}));
  EXPECT_EQ(g->why.at("num_workers"), "device_idle: idle");
  EXPECT_EQ(g->fixes.count("device_idle"), 0u);
  EXPECT_TRUE(SearchSpace::Create(g->space).ok());
  // A CPU run copies nothing to a device: pin_memory would only spend trials.
  StatusOr<DiagnosisGuidance> cpu = GuidanceFor(Traced("cpu", {{"dataloader", 0.8, "slow input", {}}}), "c.yaml");
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  ASSERT_EQ(cpu->space.params.size(), 1u);
  EXPECT_EQ(cpu->space.params[0].name, "num_workers");
  // With the specific finding beside it, that one's fix is the start.
  g = GuidanceFor(Traced("gpu", {{"device_idle", 0.8, "", {}}, {"dataloader", 0.6, "", {}}}), "i.yaml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->space.params.size(), 3u);
  EXPECT_EQ(g->fixes.at("dataloader").at("num_workers"), Value{int64_t{2}});
}

// torch.compile first shipped in PyTorch 2.0: on a report of a 1.13 run every compile_mode trial
// would fail, so the knob is left out and a note says why; a report without a version keeps it.
TEST(DiagnosisGuidanceTest, CompileModeOnlyWherePyTorchHasCompile) {
  const std::vector<ReportedFinding> findings = {{"layout_conversion", 0.8, "copies", {}},
                                                 {"launch_overhead", 0.7, "tiny ops", {}}};
  StatusOr<DiagnosisGuidance> old = GuidanceFor(Traced("gpu", findings, "1.13.1"), "r.yaml");
  ASSERT_TRUE(old.ok()) << old.status().message();
  ASSERT_EQ(old->space.params.size(), 1u);
  EXPECT_EQ(old->space.params[0].name, "memory_format");
  EXPECT_EQ(old->fixes.count("launch_overhead"), 0u);
  ASSERT_EQ(old->notes.size(), 1u);
  EXPECT_NE(old->notes[0].find("PyTorch 1.13.1"), std::string::npos) << old->notes[0];

  StatusOr<DiagnosisGuidance> recent = GuidanceFor(Traced("gpu", findings, "2.6.0+cu124"), "r.yaml");
  ASSERT_TRUE(recent.ok()) << recent.status().message();
  EXPECT_EQ(recent->space.params.size(), 2u);
  EXPECT_TRUE(recent->notes.empty());

  // Only a launch finding on 1.13: nothing to search, and the error says why.
  StatusOr<DiagnosisGuidance> none = GuidanceFor(Traced("gpu", {{"launch_overhead", 0.7, "", {}}}, "1.13.1"), "r.yaml");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("torch.compile needs PyTorch 2.0"), std::string::npos)
      << none.status().message();
  // device_idle still searches the input pipeline's knobs.
  StatusOr<DiagnosisGuidance> idle = GuidanceFor(Traced("gpu", {{"device_idle", 0.8, "", {}}}, "1.13.1"), "r.yaml");
  ASSERT_TRUE(idle.ok()) << idle.status().message();
  EXPECT_EQ(idle->space.params.size(), 2u);  // num_workers, pin_memory
}

TEST(DiagnosisGuidanceTest, GuidedStartInTheUsersOwnSpace) {
  auto space = SearchSpace::Create(SpaceDefinition{
      .params = {[] {
                   Parameter p;
                   p.name = "fmt";
                   p.type = ParamType::kCategorical;
                   p.values = {Value{"mixed"}, Value{"channels_last"}};
                   p.default_value = Value{"mixed"};
                   return p;
                 }(),
                 [] {
                   Parameter p;
                   p.name = "threads";
                   p.type = ParamType::kOrdinal;
                   p.values = {Value{int64_t{1}}, Value{int64_t{2}}};
                   p.default_value = Value{int64_t{1}};
                   return p;
                 }()}});
  ASSERT_TRUE(space.ok()) << space.status().message();
  StatusOr<DiagnosisGuidance> g = GuidanceFor(Traced("cpu", {{"tail_latency", 0.9, "slow steps", {}},
                                                          {"layout_conversion", 0.8, "copies", {}},
                                                          {"thread_oversubscription", 0.1, "weak", {}}}),
                                              "r.yaml", /*require_knobs=*/false);
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->findings.size(), 2u);  // the weak one is left out
  const std::map<std::string, std::map<std::string, Value>> fixes = {
      {"layout_conversion", {{"fmt", Value{"channels_last"}}}},
      {"thread_oversubscription", {{"threads", Value{int64_t{2}}}}}};
  std::vector<GuidedStart> starts = GuidedStartsFor(*space, fixes, *g);
  ASSERT_EQ(starts.size(), 1u);
  const GuidedStart& start = starts[0];
  EXPECT_EQ(start.values.at("fmt"), Value{"channels_last"});
  EXPECT_EQ(start.values.at("threads"), Value{int64_t{1}});  // its finding is below the cut: default
  EXPECT_EQ(start.why.at("fmt"), "layout_conversion: copies");
  EXPECT_EQ(start.why.count("threads"), 0u);
  EXPECT_TRUE(GuidedStartsFor(*space, {{"gc", {{"fmt", Value{"channels_last"}}}}}, *g).empty());

  // Two findings with fixes: one configuration each, in report order, the other knob at its
  // default; a third whose fix repeats one of them is not tried twice.
  StatusOr<DiagnosisGuidance> two = GuidanceFor(Traced("cpu", {{"layout_conversion", 0.8, "copies", {}},
                                                            {"thread_oversubscription", 0.7, "busy", {}},
                                                            {"memory_churn", 0.6, "churn", {}}}),
                                                "r.yaml", /*require_knobs=*/false);
  ASSERT_TRUE(two.ok()) << two.status().message();
  std::map<std::string, std::map<std::string, Value>> three = fixes;
  three["memory_churn"] = {{"fmt", Value{"channels_last"}}};
  starts = GuidedStartsFor(*space, three, *two);
  ASSERT_EQ(starts.size(), 2u);
  EXPECT_EQ(starts[0].values.at("fmt"), Value{"channels_last"});
  EXPECT_EQ(starts[0].values.at("threads"), Value{int64_t{1}});
  EXPECT_EQ(starts[1].values.at("fmt"), Value{"mixed"});
  EXPECT_EQ(starts[1].values.at("threads"), Value{int64_t{2}});
  EXPECT_EQ(starts[1].why.at("threads"), "thread_oversubscription: busy");
}

// The traced run's facts shape the knobs: num_threads starts at the pool the run used (8 on 2
// cores: the space was [1, 2] with default 2, and the 8 the program ran with was never measured),
// and a CPU run's memory churn suggests no CUDA allocator setting (it tuned
// PYTORCH_CUDA_ALLOC_CONF for a CPU run and wrote it down; glibc's settings are
// recommend-runtime's).
TEST(DiagnosisGuidanceTest, TheTracedRunsFactsShapeTheKnobs) {
  const ReportedFinding oversubscribed{"thread_oversubscription", 0.86, "4.8 busy threads compete for 2 cores",
                                       {{"cpu_cores", 2}, {"torch_intra_op_threads", 8}}};
  StatusOr<DiagnosisGuidance> g = GuidanceFor(Traced("cpu", {oversubscribed}), "o.yaml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->space.params.size(), 1u);
  const Parameter& threads = g->space.params[0];
  EXPECT_EQ(threads.values, (std::vector<Value>{Value{int64_t{1}}, Value{int64_t{2}}, Value{int64_t{8}}}));
  EXPECT_EQ(g->start.at("num_threads"), Value{int64_t{8}});
  // The finding's fix: a pool of the cores (its suggestion says 2; the fix was half of them, 1).
  EXPECT_EQ(g->fixes.at("thread_oversubscription").at("num_threads"), Value{int64_t{2}});
  ReportedFinding same_pool = oversubscribed;
  same_pool.metrics["torch_intra_op_threads"] = 2;
  StatusOr<DiagnosisGuidance> g2 = GuidanceFor(Traced("cpu", {same_pool}), "o.yaml");
  ASSERT_TRUE(g2.ok()) << g2.status().message();
  EXPECT_EQ(g2->fixes.at("thread_oversubscription").at("num_threads"), Value{int64_t{1}});  // it ran 2 already
  // A small pool among many busy threads: the suggestion is fewer threads, not the cores (8 on 8
  // cores with 12 busy made it worse); a large one with 2 busy outside leaves them their cores.
  auto fix = [](double pool, double busy) {
    StatusOr<DiagnosisGuidance> g = GuidanceFor(
        Traced("cpu", {{"thread_oversubscription", 0.9, "", {{"cpu_cores", 8}, {"torch_intra_op_threads", pool},
                                                          {"busy_threads_mean", busy}}}}),
        "o.yaml");
    EXPECT_TRUE(g.ok()) << g.status().message();
    return g.ok() ? g->fixes.at("thread_oversubscription").at("num_threads") : Value{};
  };
  EXPECT_EQ(fix(2, 12), Value{int64_t{1}});
  EXPECT_EQ(fix(16, 18), Value{int64_t{6}});

  const std::vector<ReportedFinding> churn = {{"memory_churn", 0.9, "churn", {}}};
  const Status cpu = GuidanceFor(Traced("cpu", churn), "c.yaml").status();
  EXPECT_EQ(cpu.code(), StatusCode::kUnavailable);
  EXPECT_NE(cpu.message().find("recommend-runtime"), std::string::npos) << cpu.message();
  StatusOr<DiagnosisGuidance> gpu = GuidanceFor(Traced("gpu", churn), "g.yaml");
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  EXPECT_EQ(gpu->space.params[0].name, "alloc_conf");
}

TEST(DiagnosisGuidanceTest, NothingTunable) {
  EXPECT_EQ(GuidanceFor(Traced("cpu", {{"tail_latency", 0.9, "", {}}}), "t.yaml").status().code(), StatusCode::kUnavailable);
  // It names the findings there were: "no finding with confidence >= 0.3" read as if none were.
  const std::string tail = GuidanceFor(Traced("cpu", {{"tail_latency", 0.8, "", {}}}), "i.yaml").status().message();
  EXPECT_EQ(tail.rfind("--from_diagnosis i.yaml: no finding suggests a tunable knob (found: tail_latency (0.80)); "
                       "knobs come from layout_conversion, ",
                       0),
            0u)
      << tail;
  EXPECT_NE(GuidanceFor(Traced("gpu", {{"device_idle", 0.1, "", {}}}), "l.yaml")
                .status()
                .message()
                .find("no finding has confidence >= 0.3"),
            std::string::npos);
  EXPECT_EQ(GuidanceFor(Traced("gpu", {}), "e.yaml").status().code(), StatusCode::kUnavailable);
}

}  // namespace
}  // namespace cprof::tune
