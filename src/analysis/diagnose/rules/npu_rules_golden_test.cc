// Golden: the Ascend rules on the torch_npu fixtures find what msprof-analyze's advisor reports
// for them — exposed communication (74.7% of the 136.6 ms step on rank0), two allreduce ops with
// sizes not 512-byte aligned, TransData with ~67% pipe headroom, dynamic-shape operators, an
// unfused SGD optimizer, environment settings (allocator, op caches) — each with evidence,
// confidence and a saving. Numbers are checked against the fixture's own files where they exist
// (step_trace_time.csv, kernel_details.csv through the importer).
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "analysis/diagnose/diagnose.h"
#include "analysis/golden_csv.h"
#include "import/import_trace.h"

namespace cprof {
namespace {

std::string Fixture(const std::string& rel) { return std::string(CPROF_FIXTURES_DIR) + "/ascend/" + rel; }

const Finding* FindRule(const Diagnosis& d, std::string_view rule) {
  for (const Finding& f : d.findings)
    if (f.rule == rule) return &f;
  return nullptr;
}

double Metric(const Finding& f, std::string_view name) {
  for (const FindingMetric& m : f.metrics)
    if (m.name == name) return m.value;
  ADD_FAILURE() << "no metric " << name << " in " << f.rule;
  return -1;
}

void Print(const Diagnosis& d) {
  for (const Finding& f : d.findings) {
    std::printf("  [%s] %-26s conf %.2f saving %8.3f ms cost %8.3f ms  %s\n", std::string(CategoryId(f.category)).c_str(),
                f.rule.c_str(), f.confidence, f.saving_ns / 1e6, f.cost_total_ns / 1e6, f.title.c_str());
    std::string line;
    for (const FindingMetric& m : f.metrics) line += " " + m.name + "=" + std::to_string(m.value);
    std::printf("      metrics:%s\n", line.c_str());
  }
}

// Every NPU finding carries the fields the report needs.
void ExpectComplete(const Finding& f, uint64_t hash) {
  SCOPED_TRACE(f.rule);
  EXPECT_EQ(f.device, "npu");
  EXPECT_GT(f.confidence, 0.0);
  EXPECT_LE(f.confidence, 1.0);
  EXPECT_FALSE(f.title.empty());
  EXPECT_FALSE(f.summary.empty());
  EXPECT_FALSE(f.saving_method.empty());
  EXPECT_LE(f.saving_ns, f.cost_total_ns);
  EXPECT_GE(f.saving_ns, 0);
  EXPECT_FALSE(f.metrics.empty());
  EXPECT_FALSE(f.suggestions.empty());
  for (const Suggestion& s : f.suggestions) EXPECT_FALSE(s.text.empty());
  (void)hash;
}

class NpuRulesGoldenTest : public ::testing::Test {
 protected:
  static Diagnosis Run(const std::string& path, Trace* keep) {
    StatusOr<Trace> t = ImportTrace(path);
    EXPECT_TRUE(t.ok()) << t.status().message();
    if (!t.ok()) return {};
    *keep = std::move(*t);
    Diagnosis d = Diagnose(*keep, DiagnoseOptions{});
    Print(d);
    return d;
  }
};

TEST_F(NpuRulesGoldenTest, Rank0FindsWhatTheAdvisorReports) {
  Trace trace;
  const Diagnosis d = Run(Fixture("text_level1/rank0_ascend_pt"), &trace);
  ASSERT_EQ(d.device, DeviceKind::kNpu);

  // Exposed communication: 101,963.203 us of the 136,581 us stage (step_trace_time.csv) = 74.65%.
  const Finding* comm = FindRule(d, "npu_exposed_communication");
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(comm->category, Category::kExposedCommunication);
  EXPECT_NEAR(Metric(*comm, "exposed_comm_fraction"), 0.747, 0.005);
  EXPECT_NEAR(Metric(*comm, "step_stage_mean_ns"), 136.581e6, 0.001e6);
  EXPECT_NEAR(Metric(*comm, "exposed_comm_ns"), 101963203, 1000);
  EXPECT_EQ(Metric(*comm, "comm_ops"), 4);
  EXPECT_GT(comm->confidence, 0.5);
  EXPECT_NE(comm->title.find("74.7%"), std::string::npos) << comm->title;
  ASSERT_GE(comm->events.size(), 2u);
  EXPECT_EQ(comm->events[0].name, "ProfilerStep#50");
  EXPECT_EQ(comm->events[1].name, "hcom_allReduce__586_0_1");  // the 79 ms one
  EXPECT_GT(comm->saving_ns, 0);

  // Byte alignment: allreduce ops 0 and 3 each have two SDMA transfers over HCCS of 1,937,312 and
  // 1,162,496 bytes (not multiples of 512); ops 1 and 2 are aligned.
  const Finding* align = FindRule(d, "comm_alignment");
  ASSERT_NE(align, nullptr);
  EXPECT_EQ(Metric(*align, "unaligned_ops"), 2);
  EXPECT_EQ(Metric(*align, "checked_ops"), 4);
  EXPECT_EQ(Metric(*align, "unaligned_tasks"), 4);
  std::vector<std::string> ops;
  for (const EvidenceEvent& e : align->events)
    if (e.name.rfind("hcom", 0) == 0) ops.push_back(e.name);
  ASSERT_EQ(ops.size(), 2u);
  EXPECT_TRUE((ops[0] == "hcom_allReduce__586_0_1" && ops[1] == "hcom_allReduce__586_3_1") ||
              (ops[1] == "hcom_allReduce__586_0_1" && ops[0] == "hcom_allReduce__586_3_1"));

  // TransData: 57 tasks, 1,423.208 us (op_statistic.csv); the advisor's top headroom entries are
  // 68.2, 67.4, 66.9, 66.9, 66.6%.
  const Finding* td = FindRule(d, "npu_layout_conversion");
  ASSERT_NE(td, nullptr);
  EXPECT_EQ(td->category, Category::kLayoutConversion);
  EXPECT_EQ(Metric(*td, "transdata_count"), 57);
  EXPECT_NEAR(Metric(*td, "transdata_ns"), 1423208, 100);
  EXPECT_NEAR(Metric(*td, "headroom_max"), 0.682, 0.002);
  EXPECT_NEAR(Metric(*td, "headroom_top5_mean"), 0.672, 0.005);
  EXPECT_NEAR(Metric(*td, "transdata_compute_fraction"), 1423.208 / 8873.756, 0.01);
  EXPECT_NE(td->title.find("68.2%"), std::string::npos) << td->title;

  // Dynamic shapes: every kernel with an op state is dynamic; 19 online compilations.
  const Finding* dyn = FindRule(d, "dynamic_shape");
  ASSERT_NE(dyn, nullptr);
  EXPECT_DOUBLE_EQ(Metric(*dyn, "dynamic_op_fraction"), 1.0);
  EXPECT_EQ(Metric(*dyn, "dynamic_tasks"), 187);
  EXPECT_EQ(Metric(*dyn, "compile_calls"), 19);
  EXPECT_NEAR(Metric(*dyn, "compile_ns"), 14049230, 20000);  // api_statistic: aclopCompileAndExecute
  bool jit = false;
  for (const Suggestion& s : dyn->suggestions) jit = jit || s.snippet.find("jit_compile=False") != std::string::npos;
  EXPECT_TRUE(jit);

  // Unfused SGD.
  const Finding* opt = FindRule(d, "npu_affinity_api");
  ASSERT_NE(opt, nullptr);
  EXPECT_EQ(opt->category, Category::kAffinityApi);
  EXPECT_NE(opt->title.find("SGD"), std::string::npos);
  EXPECT_NEAR(Metric(*opt, "optimizer_host_ns"), 10512400, 1000);
  EXPECT_EQ(Metric(*opt, "optimizer_ops"), 4);
  ASSERT_FALSE(opt->suggestions.empty());
  EXPECT_NE(opt->suggestions[0].snippet.find("torch_npu.optim.NpuFusedSGD"), std::string::npos);

  // Environment: allocator and both op caches unset.
  const Finding* env = FindRule(d, "npu_env_config");
  ASSERT_NE(env, nullptr);
  std::string snippets;
  for (const Suggestion& s : env->suggestions) snippets += s.snippet + "\n";
  EXPECT_NE(snippets.find("PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"), std::string::npos);
  EXPECT_NE(snippets.find("ACLNN_CACHE_LIMIT="), std::string::npos);
  EXPECT_NE(snippets.find("HOST_CACHE_CAPACITY="), std::string::npos);
  EXPECT_EQ(snippets.find("ASCEND_LAUNCH_BLOCKING"), std::string::npos);  // unset: fine

  // Both profiled ranks wait for rank 5's notify: in op 0 78,765 us (median peer 31 us), in op 3
  // 21,980 us (median 7 us), in op 1 877 us (median 6 us) — trace_view.json's Notify_Wait tasks.
  const Finding* slow = FindRule(d, "slow_rank");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(Metric(*slow, "late_rank"), 5);
  EXPECT_NEAR(Metric(*slow, "late_wait_ns"), 101.579e6, 0.01e6);
  EXPECT_EQ(Metric(*slow, "ops_late"), 3);
  EXPECT_EQ(Metric(*comm, "late_peer_rank"), 5);
  EXPECT_NE(comm->summary.find("rank 5"), std::string::npos) << comm->summary;

  // No AI CPU task in this run.
  EXPECT_EQ(FindRule(d, "aicpu_ops"), nullptr);

  for (const Finding* f : {comm, align, td, dyn, opt, env, slow}) {
    ExpectComplete(*f, d.content_hash);
    for (const EvidenceEvent& e : f->events) {
      EXPECT_FALSE(e.track_path.empty());
      EXPECT_GT(e.ts_ns, 0);
    }
  }
  // Exposed communication costs the most and ranks above the environment settings.
  size_t comm_pos = 0, env_pos = 0;
  for (size_t i = 0; i < d.findings.size(); ++i) {
    if (&d.findings[i] == comm) comm_pos = i;
    if (&d.findings[i] == env) env_pos = i;
  }
  EXPECT_LT(comm_pos, env_pos);
}

TEST_F(NpuRulesGoldenTest, Rank1) {
  Trace trace;
  const Diagnosis d = Run(Fixture("text_level1/rank1_ascend_pt"), &trace);
  // The exposed share is torch_npu's own, from the step_trace_time.csv beside the trace.
  const std::vector<testing::CsvRow> csv =
      testing::ReadCsv(Fixture("text_level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/step_trace_time.csv"));
  ASSERT_EQ(csv.size(), 1u);
  const double expected =
      std::stod(csv[0].at("Communication(Not Overlapped)")) / std::stod(csv[0].at("Stage"));  // 73.0%
  const Finding* comm = FindRule(d, "npu_exposed_communication");
  ASSERT_NE(comm, nullptr);
  EXPECT_NEAR(Metric(*comm, "exposed_comm_fraction"), expected, 0.005);
  const Finding* align = FindRule(d, "comm_alignment");
  ASSERT_NE(align, nullptr);
  EXPECT_EQ(Metric(*align, "unaligned_ops"), 2);
  const Finding* td = FindRule(d, "npu_layout_conversion");
  ASSERT_NE(td, nullptr);
  EXPECT_EQ(Metric(*td, "transdata_count"), 57);
  EXPECT_GT(Metric(*td, "headroom_max"), 0.6);
  ASSERT_NE(FindRule(d, "dynamic_shape"), nullptr);
  EXPECT_DOUBLE_EQ(Metric(*FindRule(d, "dynamic_shape"), "dynamic_op_fraction"), 1.0);
  EXPECT_NE(FindRule(d, "npu_affinity_api"), nullptr);
  EXPECT_NE(FindRule(d, "npu_env_config"), nullptr);
  // Rank 1, too, waits for rank 5 (78.8 + 22.0 ms of Notify_Wait on rank 0's trace; 73.2 + 22.0 here).
  const Finding* slow = FindRule(d, "slow_rank");
  ASSERT_NE(slow, nullptr);
  EXPECT_EQ(Metric(*slow, "late_rank"), 5);
}

TEST_F(NpuRulesGoldenTest, DbExport) {
  // The same kind of run exported as SQLite: no op state column, the rest as in the text export.
  Trace trace;
  const Diagnosis d = Run(Fixture("db_level1/rank0_ascend_pt"), &trace);
  ASSERT_EQ(d.device, DeviceKind::kNpu);
  const Finding* comm = FindRule(d, "npu_exposed_communication");
  ASSERT_NE(comm, nullptr);
  EXPECT_GT(Metric(*comm, "exposed_comm_fraction"), 0.5);
  const Finding* align = FindRule(d, "comm_alignment");
  ASSERT_NE(align, nullptr);
  EXPECT_EQ(Metric(*align, "unaligned_ops"), 2);
  const Finding* td = FindRule(d, "npu_layout_conversion");
  ASSERT_NE(td, nullptr);
  EXPECT_EQ(Metric(*td, "transdata_count"), 57);
  const Finding* dyn = FindRule(d, "dynamic_shape");
  ASSERT_NE(dyn, nullptr);
  EXPECT_EQ(Metric(*dyn, "compile_calls"), 19);
  EXPECT_EQ(Metric(*dyn, "tasks_with_op_state"), 0);
  EXPECT_NE(FindRule(d, "npu_affinity_api"), nullptr);
  EXPECT_NE(FindRule(d, "npu_env_config"), nullptr);
}

TEST_F(NpuRulesGoldenTest, GpuAndCpuTracesGetNoAscendFinding) {
  // The Ascend rules read Ascend data only; on Kineto GPU/CPU traces they stay silent (slow_rank
  // too: each file holds one rank).
  for (const char* rel : {"kineto/hta/nccl_parser_config/nccl_data.json.gz", "kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
                          "kineto/hta/trace_filter/sampled_rank-0.json.gz",
                          "kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"}) {
    SCOPED_TRACE(rel);
    Trace trace;
    const Diagnosis d = Run(std::string(CPROF_FIXTURES_DIR) + "/" + rel, &trace);
    for (const Finding& f : d.findings) {
      for (std::string_view mine : {"npu_exposed_communication", "comm_alignment", "npu_layout_conversion",
                                    "dynamic_shape", "aicpu_ops", "npu_affinity_api", "npu_env_config", "slow_rank"})
        EXPECT_NE(f.rule, mine);
    }
  }
}

}  // namespace
}  // namespace cprof
