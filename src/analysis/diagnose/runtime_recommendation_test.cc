// recommend-runtime's rules on synthetic traces and diagnoses: facts read off the trace, thread
// pools from cores and busy threads, allocator and environment by device and finding, batch hints,
// and the tuner's knobs mapped onto the same schema.
#include "analysis/diagnose/runtime_recommendation.h"

#include <gtest/gtest.h>

#include "analysis/diagnose/category_changes.h"
#include "model/trace_builder.h"

namespace cprof {
namespace {

constexpr int64_t kMs = 1'000'000;

// A process on `cores` cores whose `threads` threads each use `percent` CPU, sampled 5 times.
Trace ThreadedTrace(int64_t cores, int threads, double percent, const std::string& env_json) {
  Trace trace;
  TraceBuilder b(&trace);
  const TrackId main = b.ThreadTrack(1, 1);
  b.AddSlice({.ts_ns = 0, .dur_ns = 500 * kMs, .track_id = main, .name_id = b.Intern("aten::mm"),
              .category_id = b.Intern("cpu_op")});
  for (int t = 0; t < threads; ++t) {
    const TrackId c = b.ChildTrack(b.ThreadTrack(1, 100 + t), TrackKind::kCounter, b.Intern("cpu.percent"));
    for (int pass = 0; pass < 5; ++pass) b.AddCounter(c, pass * 100 * kMs + t * 1000, percent);
  }
  if (cores > 0) b.SetMetadata("cpu_cores", Value::Int(cores));
  b.SetMetadata("torch_intra_op_threads", Value::Int(16));
  if (!env_json.empty()) b.SetMetadataString("environment", env_json);
  EXPECT_TRUE(b.Finalize().ok());
  return trace;
}

Finding MakeFinding(Category c, double confidence, std::vector<FindingMetric> metrics = {}) {
  Finding f;
  f.category = c;
  f.title = std::string(CategoryId(c)) + " title";
  f.confidence = confidence;
  f.metrics = std::move(metrics);
  return f;
}

TEST(RuntimeRecommendationTest, FactsComeFromMetadataCountersAndEnvironment) {
  Trace t = ThreadedTrace(4, 8, 50.0, R"({"OMP_NUM_THREADS": "16", "HOME": "/root"})");
  RuntimeFacts f = ReadRuntimeFacts(t, DeviceKind::kCpu);
  EXPECT_EQ(f.cores, 4);
  EXPECT_EQ(f.intra_op, 16);
  ASSERT_TRUE(f.busy_threads.has_value());
  EXPECT_NEAR(*f.busy_threads, 4.0, 1e-9);  // 8 threads x 50% = 4 cores' worth per pass
  EXPECT_EQ(f.env.at("OMP_NUM_THREADS"), "16");
  EXPECT_EQ(f.env.count("HOME"), 0u);  // only the variables that matter
  EXPECT_EQ(f.host_threads, 1);
}

TEST(RuntimeRecommendationTest, OversubscribedCpuCapsPoolsAtTheCores) {
  RuntimeFacts facts;
  facts.device = DeviceKind::kCpu;
  facts.cores = 4;
  facts.intra_op = 16;
  facts.env["OMP_NUM_THREADS"] = "16";
  Diagnosis d;
  d.findings.push_back(MakeFinding(Category::kThreadOversubscription, 0.8, {{"busy_threads_mean", 18.0, ""}}));
  RuntimeAdjustment a = RecommendRuntime(facts, d);
  const RuntimeSetting* intra = a.Find(RuntimeSection::kThreads, "intra_op");
  ASSERT_NE(intra, nullptr);
  // 18 busy, 16 of them the pool: 2 busy outside it keep their cores -> 4 - 2.
  EXPECT_EQ(intra->value, "2");
  EXPECT_NE(intra->reason.find("18.0 busy threads"), std::string::npos) << intra->reason;
  EXPECT_NE(intra->reason.find("F1 thread_oversubscription"), std::string::npos) << intra->reason;
  const RuntimeSetting* omp = a.Find(RuntimeSection::kEnv, "OMP_NUM_THREADS");
  ASSERT_NE(omp, nullptr);
  EXPECT_EQ(omp->value, "2");
  EXPECT_NE(omp->reason.find("was 16"), std::string::npos);
  // Set to nothing: said so, not a reason ending in "was ".
  RuntimeFacts empty_env = facts;
  empty_env.env["MKL_NUM_THREADS"] = "";
  const RuntimeAdjustment empty_adjustment = RecommendRuntime(empty_env, d);
  const RuntimeSetting* mkl = empty_adjustment.Find(RuntimeSection::kEnv, "MKL_NUM_THREADS");
  ASSERT_NE(mkl, nullptr);
  EXPECT_EQ(mkl->reason.substr(mkl->reason.size() - 19), "; was set but empty") << mkl->reason;
  ASSERT_NE(a.Find(RuntimeSection::kEnv, "KMP_BLOCKTIME"), nullptr);
  EXPECT_EQ(a.Find(RuntimeSection::kThreads, "inter_op")->value, "1");
  EXPECT_TRUE(a.Find(RuntimeSection::kAllocator, "PYTORCH_CUDA_ALLOC_CONF") == nullptr);
  // Without the finding: no KMP_BLOCKTIME, the pool gets every core.
  RuntimeAdjustment healthy = RecommendRuntime(facts, Diagnosis{});
  EXPECT_EQ(healthy.Find(RuntimeSection::kEnv, "KMP_BLOCKTIME"), nullptr);
  EXPECT_EQ(healthy.Find(RuntimeSection::kThreads, "intra_op")->value, "4");
}

TEST(RuntimeRecommendationTest, GpuFragmentationAndDataloaderFindings) {
  RuntimeFacts facts;
  facts.device = DeviceKind::kGpu;
  facts.cores = 32;
  Diagnosis d;
  d.findings.push_back(MakeFinding(Category::kMemoryFragmentation, 0.7));
  d.findings.push_back(MakeFinding(Category::kDataloader, 0.6));
  d.findings.push_back(MakeFinding(Category::kLaunchOverhead, 0.1));  // too weak to use
  RuntimeAdjustment a = RecommendRuntime(facts, d);
  EXPECT_EQ(a.device, "gpu");
  const RuntimeSetting* alloc = a.Find(RuntimeSection::kAllocator, "PYTORCH_CUDA_ALLOC_CONF");
  ASSERT_NE(alloc, nullptr);
  EXPECT_EQ(alloc->value, "expandable_segments:True,garbage_collection_threshold:0.8");
  EXPECT_NE(alloc->reason.find("F1 memory_fragmentation"), std::string::npos);
  EXPECT_EQ(a.Find(RuntimeSection::kThreads, "intra_op")->value, "16");  // half the cores on a device trace
  EXPECT_EQ(a.Find(RuntimeSection::kBatch, "dataloader_workers")->value, "8");
  EXPECT_EQ(a.Find(RuntimeSection::kBatch, "pin_memory")->value, "true");
  EXPECT_EQ(a.Find(RuntimeSection::kBatch, "batch_size_multiplier"), nullptr);
  EXPECT_EQ(a.Find(RuntimeSection::kEnv, "OMP_PROC_BIND"), nullptr);  // CPU-only advice
}

TEST(RuntimeRecommendationTest, NpuGetsTaskQueueAndItsAllocatorVariable) {
  RuntimeFacts facts;
  facts.device = DeviceKind::kNpu;
  Diagnosis d;
  d.findings.push_back(MakeFinding(Category::kEnvConfig, 0.9));
  d.findings.push_back(MakeFinding(Category::kLaunchOverhead, 0.7));
  RuntimeAdjustment a = RecommendRuntime(facts, d);
  EXPECT_NE(a.Find(RuntimeSection::kAllocator, "PYTORCH_NPU_ALLOC_CONF"), nullptr);
  ASSERT_NE(a.Find(RuntimeSection::kEnv, "TASK_QUEUE_ENABLE"), nullptr);
  EXPECT_EQ(a.Find(RuntimeSection::kEnv, "TASK_QUEUE_ENABLE")->value, "2");
  EXPECT_NE(a.Find(RuntimeSection::kEnv, "ACL_OP_COMPILER_CACHE_MODE"), nullptr);
  EXPECT_EQ(a.Find(RuntimeSection::kBatch, "batch_size_multiplier")->value, "2");
  // No cores recorded: nothing about threads, and a note says why.
  EXPECT_EQ(a.Find(RuntimeSection::kThreads, "intra_op"), nullptr);
  ASSERT_EQ(a.notes.size(), 1u);
  EXPECT_NE(a.notes[0].find("cpu_cores"), std::string::npos);
  // Already set to 2: not repeated.
  facts.env["TASK_QUEUE_ENABLE"] = "2";
  EXPECT_EQ(RecommendRuntime(facts, d).Find(RuntimeSection::kEnv, "TASK_QUEUE_ENABLE"), nullptr);
}

TEST(RuntimeRecommendationTest, CpuMemoryChurnTunesGlibc) {
  RuntimeFacts facts;
  facts.device = DeviceKind::kCpu;
  Diagnosis d;
  d.findings.push_back(MakeFinding(Category::kMemoryChurn, 0.6));
  RuntimeAdjustment a = RecommendRuntime(facts, d);
  // Both thresholds, always together (either alone turns glibc's dynamic mmap threshold off), and
  // the mmap one within what mallopt accepts on 64-bit (32 MiB).
  const RuntimeSetting* mmap = a.Find(RuntimeSection::kAllocator, "MALLOC_MMAP_THRESHOLD_");
  const RuntimeSetting* trim = a.Find(RuntimeSection::kAllocator, "MALLOC_TRIM_THRESHOLD_");
  ASSERT_NE(mmap, nullptr);
  ASSERT_NE(trim, nullptr);
  EXPECT_LE(std::stoll(mmap->value), 32ll << 20);
  EXPECT_GT(std::stoll(trim->value), std::stoll(mmap->value));
  EXPECT_EQ(a.Find(RuntimeSection::kAllocator, "PYTORCH_CUDA_ALLOC_CONF"), nullptr);
  // The plan's standard change for CPU memory churn names the same pair.
  bool both = false;
  for (const Suggestion& s : DefaultChanges(Category::kMemoryChurn, "cpu"))
    both |= s.snippet.find("MALLOC_MMAP_THRESHOLD_=" + mmap->value) != std::string::npos &&
            s.snippet.find("MALLOC_TRIM_THRESHOLD_=" + trim->value) != std::string::npos;
  EXPECT_TRUE(both);
}

TEST(RuntimeAdjustmentTest, TunedKnobsMapOntoTheSchema) {
  RuntimeAdjustment a = RuntimeAdjustmentFromTuned(
      {{"num_threads", "6"}, {"alloc_conf", "expandable_segments:True"}, {"pin_memory", "1"}, {"block_size_x", "128"}},
      {{"num_threads", "thread_oversubscription: 19 busy threads"}}, "npu", "tune: best of 20 trials");
  EXPECT_EQ(a.producer, "tune");
  EXPECT_EQ(a.Find(RuntimeSection::kThreads, "intra_op")->value, "6");
  EXPECT_EQ(a.Find(RuntimeSection::kEnv, "OMP_NUM_THREADS")->value, "6");
  EXPECT_NE(a.Find(RuntimeSection::kThreads, "intra_op")->reason.find("19 busy threads"), std::string::npos);
  EXPECT_EQ(a.Find(RuntimeSection::kAllocator, "PYTORCH_NPU_ALLOC_CONF")->value, "expandable_segments:True");
  EXPECT_EQ(a.Find(RuntimeSection::kBatch, "pin_memory")->value, "true");
  EXPECT_EQ(a.Find(RuntimeSection::kFramework, "block_size_x")->value, "128");
  EXPECT_EQ(a.Find(RuntimeSection::kFramework, "block_size_x")->reason, "tune: best of 20 trials");
  // The bundled spaces (examples/tune, examples/aigc) call the knob `threads`.
  RuntimeAdjustment b = RuntimeAdjustmentFromTuned({{"threads", "2"}}, {}, "cpu", "tune");
  ASSERT_NE(b.Find(RuntimeSection::kThreads, "intra_op"), nullptr);
  EXPECT_EQ(b.Find(RuntimeSection::kThreads, "intra_op")->value, "2");
  EXPECT_EQ(b.Find(RuntimeSection::kEnv, "OMP_NUM_THREADS")->value, "2");
  EXPECT_EQ(b.Find(RuntimeSection::kFramework, "threads"), nullptr);
}

}  // namespace
}  // namespace cprof
