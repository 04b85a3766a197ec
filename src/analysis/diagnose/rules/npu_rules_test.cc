// Unit tests of the Ascend rules on small synthetic traces: each fires on its symptom with the
// numbers the rule's header documents, and stays silent on a healthy neighbour.
#include <map>
#include <memory>
#include <string>

#include <gtest/gtest.h>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rules.h"
#include "model/trace_builder.h"

namespace cprof {
namespace {

using Args = std::vector<std::pair<std::string, Value>>;

class NpuRulesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    b_ = std::make_unique<TraceBuilder>(&trace_);
    cpu_ = b_->ThreadTrack(1, 1);
    npu_ = b_->StreamTrack(TrackKind::kNpuStream, 0, 2);
    group_ = b_->ChildTrack(b_->DeviceTrack(0), TrackKind::kCommunication, b_->Intern("Group 0 Communication"));
    plane_ = b_->ChildTrack(b_->DeviceTrack(0), TrackKind::kCommunication, b_->Intern("Plane 1"));
  }
  Value S(std::string_view s) { return Value::String(b_->Intern(s)); }
  SliceId Add(TrackId t, int64_t ts, int64_t dur, std::string_view name, const Args& args = {}) {
    ArgSetId set = kNoArgs;
    if (!args.empty()) {
      for (const auto& [k, v] : args) b_->args().Add(b_->Intern(k), v);
      set = b_->args().Finish();
    }
    return b_->AddSlice({.ts_ns = ts, .dur_ns = dur, .track_id = t, .name_id = b_->Intern(name), .arg_set_id = set});
  }
  TrackId Analysis(std::string_view name) {
    auto it = analysis_.find(std::string(name));
    if (it != analysis_.end()) return it->second;
    return analysis_[std::string(name)] =
               b_->ChildTrack(b_->DeviceTrack(0), TrackKind::kAnalysis, b_->Intern(name));
  }
  void Overlap(std::string_view name, int64_t ts, int64_t dur) { Add(Analysis(name), ts, dur, name); }
  // An HCCL Notify_Wait of rank 0 on `peer`'s notify.
  void NotifyWait(int64_t ts, int64_t dur, int64_t peer) {
    Add(plane_, ts, dur, "Notify_Wait",
        {{"task type", S("Notify_Wait")}, {"src rank", Value::Int(0)}, {"dst rank", Value::Int(peer)}});
  }
  // A kernel task with kernel_details-style args.
  SliceId Kernel(int64_t ts, int64_t dur, std::string_view type, std::string_view core = "AI_VECTOR_CORE",
                 Args extra = {}) {
    extra.push_back({"Type", S(type)});
    extra.push_back({"Accelerator Core", S(core)});
    return Add(npu_, ts, dur, std::string(type) + "_op", extra);
  }

  std::vector<Finding> Run(std::unique_ptr<Rule> rule) {
    EXPECT_TRUE(b_->Finalize().ok());
    DiagnosisContext ctx(trace_, options_);
    std::vector<Finding> out;
    rule->Run(ctx, out);
    for (const Finding& f : out) {
      EXPECT_GT(f.confidence, 0);
      EXPECT_LE(f.saving_ns, f.cost_total_ns);
      EXPECT_FALSE(f.suggestions.empty());
      EXPECT_EQ(f.device, "npu");
    }
    return out;
  }
  static double Metric(const Finding& f, std::string_view name) {
    for (const FindingMetric& m : f.metrics)
      if (m.name == name) return m.value;
    ADD_FAILURE() << "no metric " << name;
    return -1;
  }

  Trace trace_;
  DiagnoseOptions options_;
  std::unique_ptr<TraceBuilder> b_;
  TrackId cpu_, npu_, group_, plane_;
  std::map<std::string, TrackId> analysis_;
};

TEST_F(NpuRulesTest, ExposedCommunicationFromOverlapAnalysis) {
  Add(cpu_, 0, 10000, "ProfilerStep#1");
  Overlap("Computing", 1000, 2000);
  Overlap("Communication", 3000, 6000);
  Overlap("Communication(Not Overlapped)", 3000, 6000);
  Overlap("Free", 9000, 1000);
  Add(group_, 3000, 6000, "hcom_allReduce__1_0_1", {{"comm.synchronization_time_ns", Value::Int(4000)}});
  NotifyWait(3010, 100, 1);
  NotifyWait(3020, 4100, 2);  // rank 2 signals late: 4000 beyond the median peer
  NotifyWait(3030, 100, 3);
  std::vector<Finding> out = Run(MakeNpuExposedCommunicationRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].category, Category::kExposedCommunication);
  // Stage = 10000 - 1000; exposed 6000.
  EXPECT_NEAR(Metric(out[0], "exposed_comm_fraction"), 6000.0 / 9000.0, 1e-9);
  EXPECT_EQ(out[0].cost_total_ns, 6000);
  // Saving: computing not overlapped (2000) + the late peer's excess wait (4000), capped at 6000.
  EXPECT_EQ(out[0].saving_ns, 6000);
  EXPECT_EQ(Metric(out[0], "late_peer_rank"), 2);
  EXPECT_EQ(Metric(out[0], "late_peer_wait_ns"), 4000);
  EXPECT_EQ(out[0].events[0].name, "ProfilerStep#1");
  EXPECT_EQ(out[0].events[1].name, "hcom_allReduce__1_0_1");
  EXPECT_NEAR(out[0].confidence_terms.magnitude, 1 - 0.1 / (6000.0 / 9000.0), 1e-9);
}

TEST_F(NpuRulesTest, ExposedCommunicationWithoutOverlapAnalysis) {
  // msprof-style: no Overlap Analysis group; our own breakdown of the device tracks instead.
  Add(cpu_, 0, 10000, "ProfilerStep#1");
  Kernel(1000, 2000, "Conv2D", "AI_CORE");
  Add(group_, 3000, 6000, "hcom_allReduce__1_0_1");
  std::vector<Finding> out = Run(MakeNpuExposedCommunicationRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Metric(out[0], "from_overlap_analysis"), 0);
  EXPECT_EQ(Metric(out[0], "exposed_comm_ns"), 6000);
  EXPECT_EQ(out[0].confidence_terms.specificity, 0.9);
}

TEST_F(NpuRulesTest, ExposedCommunicationBelowThresholdIsSilent) {
  Add(cpu_, 0, 10000, "ProfilerStep#1");
  Overlap("Computing", 1000, 8000);
  Overlap("Communication", 3000, 2000);
  Overlap("Communication(Not Overlapped)", 8500, 500);  // 500 / 9000 = 5.6%
  Overlap("Free", 9000, 1000);
  EXPECT_TRUE(Run(MakeNpuExposedCommunicationRule()).empty());
}

TEST_F(NpuRulesTest, CommAlignmentFlagsUnalignedSdmaTransfers) {
  Add(group_, 0, 10000, "hcom_allReduce__1_0_1");
  Add(group_, 20000, 10000, "hcom_allReduce__1_1_1");
  auto task = [&](int64_t ts, int64_t dur, int64_t size, std::string_view link) {
    Add(plane_, ts, dur, "Memcpy",
        {{"size(Byte)", Value::Int(size)}, {"transport type", S("SDMA")}, {"link type", S(link)}});
  };
  task(100, 1000, 1 << 20, "HCCS");            // aligned, 1048.576 B/ns... reference speed
  task(2000, 1100, (1 << 20) + 100, "HCCS");   // unaligned and slower
  task(4000, 10, 1000, "ON_CHIP");              // unaligned but on chip: not checked
  task(20100, 1000, 1 << 20, "HCCS");          // second op: aligned
  std::vector<Finding> out = Run(MakeCommAlignmentRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Metric(out[0], "unaligned_ops"), 1);
  EXPECT_EQ(Metric(out[0], "checked_ops"), 2);
  EXPECT_EQ(Metric(out[0], "unaligned_tasks"), 1);
  EXPECT_EQ(out[0].cost_total_ns, 1100);
  // At the aligned speed the unaligned transfer takes (2^20 + 100) / 2^20 * 1000 ns.
  const double bw = ((1 << 20) + 100) / 1100.0, ref = (1 << 20) / 1000.0;
  EXPECT_NEAR(out[0].saving_ns, 1100 * (1 - bw / ref), 1.0);
  EXPECT_EQ(out[0].events[0].name, "hcom_allReduce__1_0_1");
}

TEST_F(NpuRulesTest, CommAlignmentSilentWhenAligned) {
  Add(group_, 0, 10000, "hcom_allGather__1_0_1");
  Add(plane_, 100, 1000, "Memcpy",
      {{"size(Byte)", Value::Int(4096)}, {"transport type", S("SDMA")}, {"link type", S("HCCS")}});
  Add(plane_, 2000, 1000, "Memcpy",  // unaligned but RDMA: not an SDMA transfer
      {{"size(Byte)", Value::Int(4097)}, {"transport type", S("RDMA")}, {"link type", S("ROCE")}});
  EXPECT_TRUE(Run(MakeCommAlignmentRule()).empty());
}

TEST_F(NpuRulesTest, LayoutConversionShareAndHeadroom) {
  Add(cpu_, 0, 10000, "ProfilerStep#1");
  const Args pipes = {{"aiv_vec_ratio", Value::Double(0.1)},
                      {"aiv_mte2_ratio", Value::Double(0.2)},
                      {"aiv_mte3_ratio", Value::Double(0.05)},
                      {"Input Shapes", S("8,64,7,7")},
                      {"Output Shapes", S("8,4,7,7,16")},
                      {"Input Formats", S("NCHW")},
                      {"Output Formats", S("NC1HWC0")}};
  Kernel(100, 200, "TransData", "AI_VECTOR_CORE", pipes);
  Kernel(400, 100, "TransData", "AI_VECTOR_CORE", pipes);
  Kernel(600, 700, "Conv2D", "AI_CORE");
  Kernel(1400, 5000, "hcom_allReduce_", "HCCL");  // not compute
  std::vector<Finding> out = Run(MakeNpuLayoutConversionRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].category, Category::kLayoutConversion);
  EXPECT_EQ(Metric(out[0], "transdata_count"), 2);
  EXPECT_NEAR(Metric(out[0], "transdata_compute_fraction"), 300.0 / 1000.0, 1e-9);
  EXPECT_NEAR(Metric(out[0], "headroom_max"), 0.7 - 0.05, 1e-9);  // least-used pipe
  EXPECT_EQ(Metric(out[0], "to_private_format"), 2);
  EXPECT_EQ(out[0].saving_ns, static_cast<int64_t>(300 * (0.7 - 0.2)));  // busiest pipe
}

TEST_F(NpuRulesTest, LayoutConversionBoundOrRareIsQuiet) {
  Kernel(100, 10, "TransData", "AI_VECTOR_CORE",
         {{"aiv_vec_ratio", Value::Double(0.1)}, {"aiv_mte2_ratio", Value::Double(0.8)}, {"aiv_mte3_ratio", Value::Double(0.05)}});
  Kernel(600, 990, "MatMulV2", "AI_CORE");  // TransData 1% of compute
  EXPECT_TRUE(Run(MakeNpuLayoutConversionRule()).empty());
}

TEST_F(NpuRulesTest, DynamicShapeFromOpStateAndCompiles) {
  Add(cpu_, 0, 100000, "ProfilerStep#1");
  TrackId cann = b_->ThreadTrack(2, 2);
  for (int i = 0; i < 4; ++i) {
    Kernel(1000 + i * 1000, 100, i % 2 ? "Mul" : "ReduceSum", "AI_VECTOR_CORE", {{"OP State", S("dynamic")}});
    Add(cann, 900 + i * 1000, 500, "AscendCL@aclopCompileAndExecute");
    Add(cann, 950 + i * 1000, 100, "AscendCL@opCompile");  // nested: counted once
  }
  std::vector<Finding> out = Run(MakeDynamicShapeRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].category, Category::kDynamicShape);
  EXPECT_DOUBLE_EQ(Metric(out[0], "dynamic_op_fraction"), 1.0);
  EXPECT_EQ(Metric(out[0], "compile_calls"), 4);
  EXPECT_EQ(Metric(out[0], "compile_ns"), 2000);
  EXPECT_EQ(out[0].confidence_terms.specificity, 1.0);
  bool jit = false;
  for (const Suggestion& s : out[0].suggestions) jit = jit || s.snippet.find("jit_compile=False") != std::string::npos;
  EXPECT_TRUE(jit);
}

TEST_F(NpuRulesTest, StaticKernelsWithoutCompilesAreQuiet) {
  Add(cpu_, 0, 100000, "ProfilerStep#1");
  for (int i = 0; i < 4; ++i) Kernel(1000 + i * 1000, 100, "Mul", "AI_VECTOR_CORE", {{"OP State", S("static")}});
  EXPECT_TRUE(Run(MakeDynamicShapeRule()).empty());
}

TEST_F(NpuRulesTest, AicpuOpsShareAndDtypes) {
  Kernel(100, 100, "MatMulV2", "AI_CORE");
  Kernel(300, 100, "Add", "AI_VECTOR_CORE");
  Kernel(500, 800, "NonZero", "AI_CPU", {{"Input Data Types", S("INT64")}});
  std::vector<Finding> out = Run(MakeAicpuOpsRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].category, Category::kAicpuOps);
  EXPECT_NEAR(Metric(out[0], "aicpu_kernel_fraction"), 0.8, 1e-9);
  EXPECT_EQ(Metric(out[0], "aicpu_wide_dtype_tasks"), 1);
  EXPECT_EQ(out[0].saving_ns, 800 - 100);  // minus one mean AI Core kernel
}

TEST_F(NpuRulesTest, NoAicpuNoFinding) {
  Kernel(100, 100, "MatMulV2", "AI_CORE");
  EXPECT_TRUE(Run(MakeAicpuOpsRule()).empty());
}

TEST_F(NpuRulesTest, UnfusedOptimizerSuggestsFusedClass) {
  Add(cpu_, 0, 100000, "ProfilerStep#1");
  Add(cpu_, 50000, 20000, "Optimizer.step#Adam.step");
  for (int i = 0; i < 6; ++i) Add(cpu_, 50100 + i * 3000, 2000, i % 2 ? "aten::mul_" : "aten::add_");
  Kernel(60000, 100, "Add");
  std::vector<Finding> out = Run(MakeNpuAffinityApiRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].category, Category::kAffinityApi);
  EXPECT_EQ(Metric(out[0], "optimizer_ops"), 6);
  EXPECT_EQ(Metric(out[0], "optimizer_op_kinds"), 2);
  EXPECT_EQ(out[0].saving_ns, 20000 * 4 / 6);
  EXPECT_NE(out[0].suggestions[0].snippet.find("torch_npu.optim.NpuFusedAdam("), std::string::npos);
}

TEST_F(NpuRulesTest, FusedOptimizerOrGpuTraceIsQuiet) {
  Add(cpu_, 0, 100000, "ProfilerStep#1");
  Add(cpu_, 50000, 20000, "Optimizer.step#NpuFusedSGD.step");
  for (int i = 0; i < 6; ++i) Add(cpu_, 50100 + i * 3000, 2000, "aten::add_");
  Kernel(60000, 100, "Add");
  EXPECT_TRUE(Run(MakeNpuAffinityApiRule()).empty());
}

TEST_F(NpuRulesTest, AffinityApiNeedsAnNpuTrace) {
  Trace gpu;
  TraceBuilder b(&gpu);
  TrackId t = b.ThreadTrack(1, 1);
  b.AddSlice({.ts_ns = 0, .dur_ns = 100000, .track_id = t, .name_id = b.Intern("ProfilerStep#1")});
  b.AddSlice({.ts_ns = 50000, .dur_ns = 20000, .track_id = t, .name_id = b.Intern("Optimizer.step#SGD.step")});
  for (int i = 0; i < 6; ++i)
    b.AddSlice({.ts_ns = 50100 + i * 3000, .dur_ns = 2000, .track_id = t, .name_id = b.Intern("aten::add_")});
  b.AddSlice({.ts_ns = 60000, .dur_ns = 100, .track_id = b.StreamTrack(TrackKind::kGpuStream, 0, 7),
              .name_id = b.Intern("kernel")});
  ASSERT_TRUE(b.Finalize().ok());
  DiagnosisContext ctx(gpu, options_);
  std::vector<Finding> out;
  MakeNpuAffinityApiRule()->Run(ctx, out);
  EXPECT_TRUE(out.empty());
}

TEST_F(NpuRulesTest, EnvConfigFlagsLaunchBlocking) {
  b_->SetMetadataString("environment",
                        R"({"PYTORCH_NPU_ALLOC_CONF":"expandable_segments:True","ACLNN_CACHE_LIMIT":"100000",)"
                        R"("ASCEND_LAUNCH_BLOCKING":"1","HOST_CACHE_CAPACITY":""})");
  Kernel(100, 100, "Add");
  std::vector<Finding> out = Run(MakeNpuEnvConfigRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].category, Category::kEnvConfig);
  ASSERT_EQ(out[0].suggestions.size(), 1u);
  EXPECT_EQ(out[0].suggestions[0].snippet, "export ASCEND_LAUNCH_BLOCKING=0");
  EXPECT_NEAR(out[0].confidence_terms.magnitude, 0.95, 1e-9);
}

TEST_F(NpuRulesTest, EnvConfigHealthySettingsAreQuiet) {
  b_->SetMetadataString("environment",
                        R"({"PYTORCH_NPU_ALLOC_CONF":"expandable_segments:True","ACLNN_CACHE_LIMIT":"100000",)"
                        R"("ASCEND_LAUNCH_BLOCKING":"","HOST_CACHE_CAPACITY":"","ASCEND_GLOBAL_LOG_LEVEL":"3"})");
  Kernel(100, 100, "Add", "AI_VECTOR_CORE", {{"OP State", S("static")}});
  EXPECT_TRUE(Run(MakeNpuEnvConfigRule()).empty());
}

TEST_F(NpuRulesTest, LayoutConversionFromTaskNamesWithoutKernelTable) {
  // trace_view.json alone: no kernel_details columns, only the task type and the name.
  Add(npu_, 0, 50000, "EVENT_WAIT", {{"Task Type", S("EVENT_WAIT_SQE")}});  // not computation
  Add(npu_, 60000, 300, "trans_TransData_3", {{"Task Type", S("AI_CORE")}});
  Add(npu_, 61000, 700, "Conv2D", {{"Task Type", S("AI_CORE")}});
  std::vector<Finding> out = Run(MakeNpuLayoutConversionRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(Metric(out[0], "transdata_compute_fraction"), 0.3, 1e-9);
  EXPECT_EQ(Metric(out[0], "tunable_groups"), 0);  // no pipe metrics: no headroom claimed
  EXPECT_EQ(out[0].saving_ns, 0);
}

TEST_F(NpuRulesTest, OptimizerFromPythonFramesWithoutRecordFunction) {
  Add(cpu_, 0, 100000, "ProfilerStep#1");
  Add(cpu_, 50000, 20000, "torch/optim/adamw.py(150): step");
  for (int i = 0; i < 9; ++i)
    Add(cpu_, 50100 + i * 2000, 1500, i % 3 == 0 ? "aten::mul_" : (i % 3 == 1 ? "aten::addcdiv_" : "aten::sqrt"));
  Kernel(60000, 100, "Mul");
  std::vector<Finding> out = Run(MakeNpuAffinityApiRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(Metric(out[0], "optimizer_ops"), 9);
  EXPECT_EQ(Metric(out[0], "optimizer_op_kinds"), 3);
  EXPECT_NE(out[0].suggestions[0].snippet.find("torch_npu.optim.NpuFusedAdamW("), std::string::npos);
}

TEST_F(NpuRulesTest, EnvConfigAllocatorWeighedByFragmentation) {
  b_->SetMetadataString("environment", R"({"PYTORCH_NPU_ALLOC_CONF":"","ACLNN_CACHE_LIMIT":"100000"})");
  const TrackId reserved =
      b_->ChildTrack(b_->DeviceTrack(0), TrackKind::kCounter, b_->Intern("PTA Total Reserved(MB)"));
  const TrackId allocated =
      b_->ChildTrack(b_->DeviceTrack(0), TrackKind::kCounter, b_->Intern("PTA Total Allocated(MB)"));
  b_->AddCounter(reserved, 100, 400);
  b_->AddCounter(allocated, 100, 380);
  b_->AddCounter(reserved, 200, 1000);  // peak reserved: half of it unallocated
  b_->AddCounter(allocated, 150, 500);
  b_->AddCounter(allocated, 300, 900);  // after the peak: not used
  Kernel(100, 100, "Add");
  std::vector<Finding> out = Run(MakeNpuEnvConfigRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_NEAR(Metric(out[0], "memory_fragmentation_at_peak"), 0.5, 1e-9);
  EXPECT_NEAR(out[0].confidence_terms.magnitude, 1 - 0.05 / 0.5, 1e-9);
  EXPECT_EQ(out[0].suggestions[0].snippet, "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True");
  EXPECT_EQ(out[0].saving_ns, 0);  // memory, not time
}

TEST_F(NpuRulesTest, SlowRankInAMergedTrace) {
  auto stream_of_rank = [&](int64_t rank, int64_t device) {
    TrackId t = b_->StreamTrack(TrackKind::kNpuStream, device, 2);
    b_->tracks().rank[Index(t)] = rank;
    return t;
  };
  const TrackId r0 = stream_of_rank(0, 10), r1 = stream_of_rank(1, 11), r2 = stream_of_rank(2, 12);
  Add(r0, 0, 1000, "MatMul");
  Add(r1, 0, 1000, "MatMul");
  Add(r2, 0, 1500, "MatMul");  // 50% more than the median
  std::vector<Finding> out = Run(MakeSlowRankRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].category, Category::kSlowRank);
  EXPECT_EQ(Metric(out[0], "slow_rank"), 2);
  EXPECT_NEAR(Metric(out[0], "excess_fraction"), 0.5, 1e-9);
  EXPECT_EQ(out[0].saving_ns, 500);
}

TEST_F(NpuRulesTest, OneRankHasNoSlowRank) {
  b_->tracks().rank[Index(npu_)] = 0;
  Kernel(0, 1000, "MatMul");
  EXPECT_TRUE(Run(MakeSlowRankRule()).empty());
}

TEST_F(NpuRulesTest, LatePeerFromNotifyWaitsInOneRanksTrace) {
  b_->tracks().rank[Index(npu_)] = 0;
  Add(cpu_, 0, 100000, "ProfilerStep#1");
  Kernel(100, 1000, "MatMul");
  for (int op = 0; op < 3; ++op) {
    const int64_t ts = 10000 + op * 20000;
    Add(group_, ts, 15000, "hcom_allReduce__1_" + std::to_string(op) + "_1");
    NotifyWait(ts + 10, 50, 1);
    NotifyWait(ts + 20, op == 2 ? 60 : 10050, 2);  // rank 2 late in two of three ops
    NotifyWait(ts + 30, 40, 3);
  }
  std::vector<Finding> out = Run(MakeSlowRankRule());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].category, Category::kSlowRank);
  EXPECT_EQ(Metric(out[0], "late_rank"), 2);
  EXPECT_EQ(Metric(out[0], "late_wait_ns"), 2 * (10050 - 50) + (60 - 50));
  EXPECT_EQ(Metric(out[0], "ops_late"), 3);
  EXPECT_EQ(out[0].events[0].name, "Notify_Wait");
}

TEST_F(NpuRulesTest, EvenPeersAreNotSlow) {
  Add(cpu_, 0, 100000, "ProfilerStep#1");
  Kernel(100, 1000, "MatMul");
  Add(group_, 10000, 15000, "hcom_allReduce__1_0_1");
  NotifyWait(10010, 50, 1);
  NotifyWait(10020, 60, 2);
  NotifyWait(10030, 40, 3);
  EXPECT_TRUE(Run(MakeSlowRankRule()).empty());
}

}  // namespace
}  // namespace cprof
