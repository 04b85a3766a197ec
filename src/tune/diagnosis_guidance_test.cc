// Guidance from a diagnose report: categories map to knobs, weak findings are ignored.
#include "tune/diagnosis_guidance.h"

#include <gtest/gtest.h>

namespace cprof::tune {
namespace {

// The shape `diagnose --output R.yaml` writes (README, "diagnose"), trimmed to what is read.
constexpr const char* kReport = R"(schema_version: 1
kind: diagnosis
content_hash: "0x00ab12cd34ef5678"
device: cpu
findings:
  - id: F1
    rank: 1
    category: layout_conversion
    title: "18% of step time in contiguous copies"
    confidence: 0.81
    saving_ns: 12000000
    evidence: {metrics: [], events: []}
  - id: F2
    category: fusion_candidate
    title: "GELU decomposed into 5 ops"
    confidence: 0.6
  - id: F3
    category: launch_overhead
    title: "many tiny ops"
    confidence: 0.7
  - id: F4
    category: thread_oversubscription
    title: "weak"
    confidence: 0.1
  - id: F5
    category: tail_latency
    title: "no knob for this"
    confidence: 0.9
)";

TEST(DiagnosisGuidanceTest, CategoriesBecomeKnobsWithTodayAsTheStart) {
  StatusOr<DiagnosisGuidance> g = ParseDiagnosisGuidance(kReport, "r.yaml");
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
  StatusOr<DiagnosisGuidance> g =
      ParseDiagnosisGuidance("findings:\n  - {category: device_idle, title: idle, confidence: 0.8}\n", "i.yaml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  std::vector<std::string> names;
  for (const Parameter& p : g->space.params) names.push_back(p.name);
  EXPECT_EQ(names, (std::vector<std::string>{"num_workers", "pin_memory", "compile_mode"}));
  EXPECT_EQ(g->why.at("num_workers"), "device_idle: idle");
  EXPECT_EQ(g->fixes.count("device_idle"), 0u);
  EXPECT_TRUE(SearchSpace::Create(g->space).ok());
  // A CPU run copies nothing to a device: pin_memory would only spend trials.
  StatusOr<DiagnosisGuidance> cpu = ParseDiagnosisGuidance(
      "device: cpu\nfindings:\n  - {category: dataloader, title: slow input, confidence: 0.8}\n", "c.yaml");
  ASSERT_TRUE(cpu.ok()) << cpu.status().message();
  ASSERT_EQ(cpu->space.params.size(), 1u);
  EXPECT_EQ(cpu->space.params[0].name, "num_workers");
  // With the specific finding beside it, that one's fix is the start.
  g = ParseDiagnosisGuidance(
      "findings:\n  - {category: device_idle, confidence: 0.8}\n  - {category: dataloader, confidence: 0.6}\n",
      "i.yaml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  EXPECT_EQ(g->space.params.size(), 3u);
  EXPECT_EQ(g->fixes.at("dataloader").at("num_workers"), Value{int64_t{2}});
}

// torch.compile first shipped in PyTorch 2.0: on a report of a 1.13 run every compile_mode trial
// would fail, so the knob is left out and a note says why; a report without a version keeps it.
TEST(DiagnosisGuidanceTest, CompileModeOnlyWherePyTorchHasCompile) {
  const std::string findings =
      "findings:\n  - {category: layout_conversion, title: copies, confidence: 0.8}\n"
      "  - {category: launch_overhead, title: tiny ops, confidence: 0.7}\n";
  StatusOr<DiagnosisGuidance> old = ParseDiagnosisGuidance("torch_version: 1.13.1\n" + findings, "r.yaml");
  ASSERT_TRUE(old.ok()) << old.status().message();
  ASSERT_EQ(old->space.params.size(), 1u);
  EXPECT_EQ(old->space.params[0].name, "memory_format");
  EXPECT_EQ(old->fixes.count("launch_overhead"), 0u);
  ASSERT_EQ(old->notes.size(), 1u);
  EXPECT_NE(old->notes[0].find("PyTorch 1.13.1"), std::string::npos) << old->notes[0];

  StatusOr<DiagnosisGuidance> recent = ParseDiagnosisGuidance("torch_version: 2.6.0+cu124\n" + findings, "r.yaml");
  ASSERT_TRUE(recent.ok()) << recent.status().message();
  EXPECT_EQ(recent->space.params.size(), 2u);
  EXPECT_TRUE(recent->notes.empty());

  // Only a launch finding on 1.13: nothing to search, and the error says why.
  StatusOr<DiagnosisGuidance> none = ParseDiagnosisGuidance(
      "torch_version: 1.13.1\nfindings:\n  - {category: launch_overhead, confidence: 0.7}\n", "r.yaml");
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("torch.compile needs PyTorch 2.0"), std::string::npos)
      << none.status().message();
  // device_idle still searches the input pipeline's knobs.
  StatusOr<DiagnosisGuidance> idle = ParseDiagnosisGuidance(
      "torch_version: 1.13.1\nfindings:\n  - {category: device_idle, confidence: 0.8}\n", "r.yaml");
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
  StatusOr<DiagnosisGuidance> g = ParseDiagnosisGuidance(
      "findings:\n  - {category: tail_latency, confidence: 0.9, title: slow steps}\n"
      "  - {category: layout_conversion, confidence: 0.8, title: copies}\n"
      "  - {category: thread_oversubscription, confidence: 0.1, title: weak}\n",
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
  StatusOr<DiagnosisGuidance> two = ParseDiagnosisGuidance(
      "findings:\n  - {category: layout_conversion, confidence: 0.8, title: copies}\n"
      "  - {category: thread_oversubscription, confidence: 0.7, title: busy}\n"
      "  - {category: memory_churn, confidence: 0.6, title: churn}\n",
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
  constexpr const char* kOversubscribed = R"(device: cpu
findings:
  - category: thread_oversubscription
    title: "4.8 busy threads compete for 2 cores"
    confidence: 0.86
    evidence:
      metrics:
        - {name: cpu_cores, value: 2, unit: count}
        - {name: torch_intra_op_threads, value: 8, unit: count}
)";
  StatusOr<DiagnosisGuidance> g = ParseDiagnosisGuidance(kOversubscribed, "o.yaml");
  ASSERT_TRUE(g.ok()) << g.status().message();
  ASSERT_EQ(g->space.params.size(), 1u);
  const Parameter& threads = g->space.params[0];
  EXPECT_EQ(threads.values, (std::vector<Value>{Value{int64_t{1}}, Value{int64_t{2}}, Value{int64_t{8}}}));
  EXPECT_EQ(g->start.at("num_threads"), Value{int64_t{8}});
  // The finding's fix: a pool of the cores (its suggestion says 2; the fix was half of them, 1).
  EXPECT_EQ(g->fixes.at("thread_oversubscription").at("num_threads"), Value{int64_t{2}});
  std::string same_pool = kOversubscribed;
  same_pool.replace(same_pool.find("value: 8"), 8, "value: 2");
  StatusOr<DiagnosisGuidance> g2 = ParseDiagnosisGuidance(same_pool, "o.yaml");
  ASSERT_TRUE(g2.ok()) << g2.status().message();
  EXPECT_EQ(g2->fixes.at("thread_oversubscription").at("num_threads"), Value{int64_t{1}});  // it ran 2 already
  // A small pool among many busy threads: the suggestion is fewer threads, not the cores (8 on 8
  // cores with 12 busy made it worse); a large one with 2 busy outside leaves them their cores.
  auto fix = [](const char* pool, const char* busy) {
    StatusOr<DiagnosisGuidance> g = ParseDiagnosisGuidance(
        std::string("device: cpu\nfindings:\n  - category: thread_oversubscription\n    confidence: 0.9\n"
                    "    evidence:\n      metrics:\n        - {name: cpu_cores, value: 8}\n"
                    "        - {name: torch_intra_op_threads, value: ") + pool + "}\n" +
            "        - {name: busy_threads_mean, value: " + busy + "}\n",
        "o.yaml");
    EXPECT_TRUE(g.ok()) << g.status().message();
    return g.ok() ? g->fixes.at("thread_oversubscription").at("num_threads") : Value{};
  };
  EXPECT_EQ(fix("2", "12"), Value{int64_t{1}});
  EXPECT_EQ(fix("16", "18"), Value{int64_t{6}});

  const std::string churn = "findings:\n  - {category: memory_churn, confidence: 0.9, title: churn}\n";
  const Status cpu = ParseDiagnosisGuidance("device: cpu\n" + churn, "c.yaml").status();
  EXPECT_EQ(cpu.code(), StatusCode::kUnavailable);
  EXPECT_NE(cpu.message().find("recommend-runtime"), std::string::npos) << cpu.message();
  StatusOr<DiagnosisGuidance> gpu = ParseDiagnosisGuidance("device: gpu\n" + churn, "g.yaml");
  ASSERT_TRUE(gpu.ok()) << gpu.status().message();
  EXPECT_EQ(gpu->space.params[0].name, "alloc_conf");
}

TEST(DiagnosisGuidanceTest, NothingTunableOrBadInput) {
  EXPECT_EQ(ParseDiagnosisGuidance("findings:\n  - {category: tail_latency, confidence: 0.9}\n", "t.yaml").status().code(),
            StatusCode::kUnavailable);
  // It names the findings there were: "no finding with confidence >= 0.3" read as if none were.
  const std::string tail =
      ParseDiagnosisGuidance("findings:\n  - {category: tail_latency, confidence: 0.8}\n", "i.yaml").status().message();
  EXPECT_EQ(tail.rfind("--from_diagnosis i.yaml: no finding suggests a tunable knob (found: tail_latency (0.80)); "
                       "knobs come from layout_conversion, ",
                       0),
            0u)
      << tail;
  EXPECT_NE(ParseDiagnosisGuidance("findings:\n  - {category: device_idle, confidence: 0.1}\n", "l.yaml")
                .status()
                .message()
                .find("no finding has confidence >= 0.3"),
            std::string::npos);
  EXPECT_EQ(ParseDiagnosisGuidance("findings: [ {", "b.yaml").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(ParseDiagnosisGuidance("steps: 3\n", "s.yaml").status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(LoadDiagnosisGuidance("/nonexistent.yaml").status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace cprof::tune
