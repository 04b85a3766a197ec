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

// HTA nccl_data (A100, DDP over NCCL, 3 steps). By hand (python over the JSON): per step the
// device is busy 49.4/49.7/58.3 ms of 222.4/219.7/224.9 ms, so idle 509.6 ms of 667.1 ms (76.4%);
// the host is inside "## forward ##" (103 ms) during the 15.7 ms gaps. NCCL all-reduce not
// overlapped with computation: 10.16 + 10.53 + 18.84 = 39.53 ms. cuDNN nchwToNhwc/nhwcToNchw
// kernels take 5.0 ms per step (2.3% of the step): below layout_conversion's 3% threshold.
TEST(DiagnoseGoldenTest, NcclDataDeviceIdleThenExposedCommunication) {
  Trace t = Load("kineto/hta/nccl_parser_config/nccl_data.json.gz");
  Diagnosis d = DiagnoseAndPrint(t);
  EXPECT_EQ(d.device, DeviceKind::kGpu);
  EXPECT_EQ(d.step_count, 3);
  size_t rank = 0;
  const Finding* idle = Find(d, Category::kDeviceIdle, &rank);
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(rank, 1u);
  EXPECT_NEAR(Metric(*idle, "device_idle_ns"), 509.605e6, 0.01e6);
  EXPECT_NEAR(Metric(*idle, "device_idle_fraction"), 0.7639, 0.0005);
  EXPECT_GT(Metric(*idle, "idle_while_host_dispatches_ns"), 0.99 * Metric(*idle, "device_idle_ns"));
  EXPECT_NEAR(Metric(*idle, "longest_gap_ns"), 15.72e6, 0.01e6);
  ASSERT_GE(idle->events.size(), 2u);
  EXPECT_EQ(idle->events[1].name, "## forward ##");
  EXPECT_GT(idle->confidence, 0.7);
  const Finding* comm = Find(d, Category::kExposedCommunication, &rank);
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(rank, 2u);
  EXPECT_NEAR(Metric(*comm, "exposed_comm_ns"), 39.53e6, 0.01e6);
  EXPECT_EQ(Metric(*comm, "comm_events"), 21);
  EXPECT_EQ(comm->saving_ns, comm->cost_total_ns);  // every step has more compute than exposed comm
  EXPECT_NE(comm->events[0].name.find("ncclKernel_AllReduce"), std::string::npos);
  EXPECT_EQ(Find(d, Category::kLayoutConversion), nullptr);
  EXPECT_EQ(Find(d, Category::kHostDeviceSync), nullptr);  // its syncs start with the device already idle
}

// HTA trace_diff control (6 steps, 465 ms): NCCL not overlapped 9.6..19.0 ms per step, 87.267 ms
// in all (18.8%); 294 runs of 4+ back-to-back elementwise kernels on one stream, 39.08 ms; gaps
// under 100 us between device work 51.134 ms (11%), 9,162 computation kernels (1,527 per step).
// FusedAdam's 257 add_ per step launch no kernels (step counters): not an affinity_api finding.
TEST(DiagnoseGoldenTest, TraceDiffControlExposedCommunicationFirst) {
  Diagnosis d = DiagnoseAndPrint(Load("kineto/hta/trace_diff/control/control.json.gz"));
  EXPECT_EQ(d.step_count, 6);
  size_t rank = 0;
  const Finding* comm = Find(d, Category::kExposedCommunication, &rank);
  ASSERT_NE(comm, nullptr);
  EXPECT_EQ(rank, 1u);
  EXPECT_NEAR(Metric(*comm, "exposed_comm_ns"), 87.267e6, 0.001e6);
  EXPECT_NEAR(Metric(*comm, "exposed_comm_fraction"), 87.267 / 464.945, 0.0005);
  const Finding* fusion = Find(d, Category::kFusionCandidate);
  ASSERT_NE(fusion, nullptr);
  EXPECT_EQ(Metric(*fusion, "pattern:elementwise_chain"), 294);
  EXPECT_NEAR(Metric(*fusion, "pattern_ns"), 39.08e6, 0.001e6);
  const Finding* launch = Find(d, Category::kLaunchOverhead);
  ASSERT_NE(launch, nullptr);
  EXPECT_NEAR(Metric(*launch, "launch_gap_ns"), 51.134e6, 0.001e6);
  EXPECT_EQ(Metric(*launch, "kernels_per_step"), 1527);
  EXPECT_LT(launch->confidence, 0.5);  // barely past its 10% threshold
  EXPECT_EQ(Find(d, Category::kAffinityApi), nullptr);

  Diagnosis test = DiagnoseAndPrint(Load("kineto/hta/trace_diff/test/test.json.gz"));
  const Finding* test_comm = Find(test, Category::kExposedCommunication, &rank);
  ASSERT_NE(test_comm, nullptr);
  EXPECT_EQ(rank, 1u);
  EXPECT_LT(Metric(*test_comm, "exposed_comm_ns"), Metric(*comm, "exposed_comm_ns"));
}

// HTA cuda_event_sync (one 3,154 us step): aten::item at +2,912 us waits for a DtoH copy that
// ends at +2,937; the device then idles until the spin kernel at +3,037 (100 us). The
// cudaEventSynchronize at +3,047 waits for that kernel (ends +3,073); nothing runs after it
// (81 us to the step's end). The cudaDeviceSynchronize at +3,139 finds the device already idle.
// Device busy 51 us of 3,154.
TEST(DiagnoseGoldenTest, CudaEventSyncFindsTheTwoDrainingSyncs) {
  Diagnosis d = DiagnoseAndPrint(Load("kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz"));
  const Finding* sync = Find(d, Category::kHostDeviceSync);
  ASSERT_NE(sync, nullptr);
  EXPECT_EQ(Metric(*sync, "syncs"), 3);  // aten::item (its cudaStreamSynchronize nested), event, device
  EXPECT_EQ(Metric(*sync, "syncs_followed_by_idle"), 2);
  EXPECT_EQ(Metric(*sync, "device_idle_after_sync_ns"), 181'000);
  EXPECT_EQ(sync->saving_ns, 45'000 + 34'000);  // min(idle, host blocked) per sync
  ASSERT_EQ(sync->events.size(), 2u);
  EXPECT_EQ(sync->events[0].name, "aten::item");
  EXPECT_EQ(sync->events[1].name, "cudaEventSynchronize");
  size_t rank = 0;
  const Finding* idle = Find(d, Category::kDeviceIdle, &rank);
  ASSERT_NE(idle, nullptr);
  EXPECT_EQ(rank, 1u);
  EXPECT_EQ(Metric(*idle, "device_idle_ns"), 3'103'000);
}

// TraceLens BERT inference. H100: 60 kernels in the 4,426 us step, 58 under 10 us, busy 309 us;
// gaps under 100 us between them add up to 2,503 us (57%). MI300: the same model, 49%.
// SGLang decode (no steps): one 463 ms device gap before the graph replays in a 474 ms span.
TEST(DiagnoseGoldenTest, TraceLensLaunchBoundInference) {
  Diagnosis h100 = DiagnoseAndPrint(Load("kineto/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz"));
  size_t rank = 0;
  const Finding* launch = Find(h100, Category::kLaunchOverhead, &rank);
  ASSERT_NE(launch, nullptr);
  EXPECT_EQ(rank, 1u);
  EXPECT_EQ(Metric(*launch, "kernels"), 60);
  EXPECT_NEAR(Metric(*launch, "short_kernel_fraction"), 58.0 / 60, 1e-9);
  EXPECT_NEAR(Metric(*launch, "launch_gap_ns"), 2.503e6, 0.002e6);
  EXPECT_GT(launch->confidence, 0.6);
  const Finding* idle = Find(h100, Category::kDeviceIdle);
  ASSERT_NE(idle, nullptr);
  EXPECT_NEAR(Metric(*idle, "device_idle_ns"), 4.117e6, 0.002e6);

  Diagnosis mi300 = DiagnoseAndPrint(Load("kineto/tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz"));
  ASSERT_NE(Find(mi300, Category::kLaunchOverhead), nullptr);
  EXPECT_NEAR(Metric(*Find(mi300, Category::kLaunchOverhead), "launch_gap_fraction"), 0.49, 0.01);

  Diagnosis sglang = DiagnoseAndPrint(Load("kineto/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz"));
  const Finding* sidle = Find(sglang, Category::kDeviceIdle, &rank);
  ASSERT_NE(sidle, nullptr);
  EXPECT_EQ(rank, 1u);
  EXPECT_NEAR(Metric(*sidle, "longest_gap_ns"), 463.3e6, 0.1e6);
  EXPECT_EQ(Find(sglang, Category::kLaunchOverhead), nullptr);  // graph replays: no launch gaps
}

// The other HTA traces, for the rules' reach: none of the eight GPU/CPU rules of this folder
// may fire above 0.5 where the trace does not show its symptom.
TEST(DiagnoseGoldenTest, OtherHtaTraces) {
  Diagnosis ns = DiagnoseAndPrint(Load("kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz"));
  for (const Finding& f : ns.findings) EXPECT_LE(f.confidence, 0.5) << f.title;
  Diagnosis cpu = DiagnoseAndPrint(Load("kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz"));
  EXPECT_EQ(cpu.device, DeviceKind::kCpu);
  EXPECT_EQ(Find(cpu, Category::kLaunchOverhead), nullptr);
  Diagnosis rank0 = DiagnoseAndPrint(Load("kineto/hta/trace_filter/sampled_rank-0.json.gz"));
  EXPECT_NE(Find(rank0, Category::kExposedCommunication), nullptr);
  Diagnosis amd = DiagnoseAndPrint(Load("kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz"));
  EXPECT_NE(Find(amd, Category::kDeviceIdle), nullptr);
}

}  // namespace
}  // namespace cprof
