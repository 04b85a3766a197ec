// Golden test of the JSON importer: every Kineto fixture (.json.gz) and every torch_npu
// trace_view.json under ../shared/fixtures imports with no error-severity stat and with exactly
// the rows an independent count over the raw JSON predicts.
//
// Where the numbers come from: src/import/json/golden_counts.py (stdlib Python, numbers read as
// Decimal) walks the same files and prints them; run
//   python3 src/import/json/golden_counts.py ../shared/fixtures
// Its rules, in short:
//   slices      X events with a dur + i/I instants that are not "[memory]" (the fixtures have no
//               B/E or async events).
//   memory      "[memory]" instants with Bytes and Addr.
//   counters    one value per numeric arg of each C event (torch_npu acc_id labels, not values).
//   tracks      GPU streams = distinct (pid, tid) of X events of Kineto device categories
//               (kernel, gpu_memcpy, gpu_memset, gpu_user_annotation, cuda_sync); NPU streams /
//               communication / analysis = distinct (pid, tid) rows of the "Ascend Hardware" /
//               "HCCL" / "Overlap Analysis" processes; threads = all other distinct (pid, tid)
//               rows of slices, thread-scope instants, memory events and flow events; counter
//               tracks = distinct (pid, series); processes = pids of threads and counters, plus
//               one root for global ('s': 'g') instants; devices = distinct device indexes.
//   flows       s/t/f endpoints bound to a slice of their row at their ts (s, t and f with
//               bp "e": the deepest slice with start <= ts <= end; f without bp: the next slice
//               to start), chained per (cat, id) in (ts, phase) order with fan-out (every f links
//               from the open s). Kinds: ac2g / async_cpu_to_gpu -> launch, fwdbwd -> fwd_bwd,
//               async_npu / HostToDevice -> host_to_device, async_task_queue -> queue.
#include <gtest/gtest.h>

#include <filesystem>
#include <map>
#include <set>
#include <string>

#include "import/json/json_trace_reader.h"
#include "model/trace_builder.h"

namespace cprof {
namespace {

namespace fs = std::filesystem;

struct Expected {
  size_t slices, memory, counters;
  size_t threads, processes, devices, gpu_streams, npu_streams, communication, analysis, counter_tracks;
  size_t launch, fwd_bwd, host_to_device, queue;
  const char* source_format;
  int64_t rank;  // -1: the trace names none
};

// Keyed by path under CPROF_FIXTURES_DIR.
const std::map<std::string, Expected>& Golden() {
  static const std::map<std::string, Expected> kGolden = {
      // path                                      slices mem  ctr  thr pr dev gpu npu com ana ctrk  launch fwdbwd h2d queue
      {"kineto/hta/amd_trace/mi250_minitoy_train_ROCm6_2_kineto.json.gz",
       {115, 0, 0, 3, 3, 1, 1, 0, 0, 0, 0, 16, 4, 0, 0, "kineto", -1}},
      {"kineto/hta/cpu_only/rank-34.Jul_15_10_52_41.1074.pt.trace.json.gz",
       {18, 0, 0, 4, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, "kineto", 34}},
      {"kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz",
       {35, 0, 0, 2, 3, 1, 2, 0, 0, 0, 0, 7, 0, 0, 0, "kineto", 0}},
      {"kineto/hta/nccl_parser_config/nccl_data.json.gz",
       {26935, 0, 0, 4, 3, 1, 2, 0, 0, 0, 0, 3774, 543, 0, 0, "kineto", 0}},
      {"kineto/hta/ns_resolution_trace/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz",
       {45422, 0, 0, 4, 3, 1, 1, 0, 0, 0, 0, 6095, 905, 0, 0, "kineto", 0}},
      {"kineto/hta/trace_diff/control/control.json.gz",
       {74939, 0, 0, 4, 3, 1, 4, 0, 0, 0, 0, 9450, 0, 0, 0, "kineto", 3}},
      {"kineto/hta/trace_diff/test/test.json.gz",
       {68326, 0, 0, 4, 3, 1, 4, 0, 0, 0, 0, 15018, 0, 0, 0, "kineto", 1}},
      {"kineto/hta/trace_filter/sampled_rank-0.json.gz",
       {4811, 0, 0, 3, 2, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, "kineto", 0}},
      {"kineto/hta/trace_filter/sampled_rank-1.json.gz",
       {4676, 0, 0, 3, 2, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, "kineto", 1}},
      {"kineto/hta/triton_example/triton_example.json.gz",
       {10, 0, 0, 3, 4, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, "kineto", -1}},
      {"kineto/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz",
       {2062, 236, 0, 3, 4, 1, 1, 0, 0, 0, 0, 61, 0, 0, 0, "kineto", -1}},
      {"kineto/tracelens/inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz",
       {1471, 0, 0, 1, 1, 1, 2, 0, 0, 0, 0, 14, 0, 0, 0, "kineto", 0}},
      {"kineto/tracelens/mi300/gaunernst_bert-small-uncased__1016001.json.gz",
       {2135, 236, 0, 3, 4, 1, 1, 0, 0, 0, 0, 61, 0, 0, 0, "kineto", -1}},
      {"ascend/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
       {4384, 0, 4431, 7, 9, 1, 0, 4, 9, 4, 134, 0, 27, 391, 159, "torch_npu", 0}},
      {"ascend/text_level1/rank1_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json",
       {4385, 0, 4287, 7, 9, 1, 0, 4, 9, 4, 134, 0, 27, 387, 159, "torch_npu", 1}},
  };
  return kGolden;
}

StatusOr<Trace> Import(const std::string& path) {
  Trace trace;
  TraceBuilder builder(&trace);
  RETURN_IF_ERROR(NewJsonTraceReader()->Read(path, {}, &builder));
  RETURN_IF_ERROR(builder.Finalize());
  return trace;
}

size_t Tracks(const Trace& t, TrackKind kind) {
  size_t n = 0;
  for (size_t i = 0; i < t.tracks.size(); ++i) n += t.tracks.kind[i] == kind;
  return n;
}

size_t Flows(const Trace& t, FlowKind kind) {
  size_t n = 0;
  for (size_t i = 0; i < t.flows.size(); ++i) n += t.flows.kind[i] == kind;
  return n;
}

void Check(const std::string& rel, const Trace& t, const Expected& e) {
  SCOPED_TRACE(rel);
  EXPECT_EQ(t.stats.CountAtLeast(Severity::kError), 0);
  EXPECT_EQ(t.slices.size(), e.slices);
  EXPECT_EQ(t.memory_events.size(), e.memory);
  EXPECT_EQ(t.counters.size(), e.counters);
  EXPECT_EQ(Tracks(t, TrackKind::kThread), e.threads);
  EXPECT_EQ(Tracks(t, TrackKind::kProcess), e.processes);
  EXPECT_EQ(Tracks(t, TrackKind::kDevice), e.devices);
  EXPECT_EQ(Tracks(t, TrackKind::kGpuStream), e.gpu_streams);
  EXPECT_EQ(Tracks(t, TrackKind::kNpuStream), e.npu_streams);
  EXPECT_EQ(Tracks(t, TrackKind::kCommunication), e.communication);
  EXPECT_EQ(Tracks(t, TrackKind::kAnalysis), e.analysis);
  EXPECT_EQ(Tracks(t, TrackKind::kCounter), e.counter_tracks);
  EXPECT_EQ(Tracks(t, TrackKind::kAsync), 0u);
  EXPECT_EQ(Flows(t, FlowKind::kLaunch), e.launch);
  EXPECT_EQ(Flows(t, FlowKind::kFwdBwd), e.fwd_bwd);
  EXPECT_EQ(Flows(t, FlowKind::kHostToDevice), e.host_to_device);
  EXPECT_EQ(Flows(t, FlowKind::kQueue), e.queue);
  EXPECT_EQ(Flows(t, FlowKind::kOther), 0u);
  EXPECT_EQ(t.MetadataText(meta::kSourceFormat), e.source_format);
  auto rank = t.Metadata(meta::kRank);
  EXPECT_EQ(rank ? rank->i : -1, e.rank);
  // Every slice lies on a track of the trace, and flows join real slices.
  for (size_t i = 0; i < t.flows.size(); ++i) {
    ASSERT_LT(Index(t.flows.out_slice_id[i]), t.slices.size());
    ASSERT_LT(Index(t.flows.in_slice_id[i]), t.slices.size());
  }
}

TEST(JsonGoldenTest, EveryKinetoAndTorchNpuFixtureImportsWithTheExpectedRows) {
  const fs::path root = CPROF_FIXTURES_DIR;
  std::set<std::string> seen;
  for (const char* dir : {"kineto", "ascend"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / dir)) {
      const std::string name = entry.path().filename().string();
      const bool kineto = std::string(dir) == "kineto" && name.size() > 8 && name.ends_with(".json.gz");
      if (!kineto && name != "trace_view.json") continue;
      const std::string rel = fs::relative(entry.path(), root).string();
      auto it = Golden().find(rel);
      ASSERT_NE(it, Golden().end()) << rel << ": a fixture without golden counts; add them from golden_counts.py";
      auto t = Import(entry.path().string());
      ASSERT_TRUE(t.ok()) << t.status().message();
      Check(rel, *t, it->second);
      seen.insert(rel);
    }
  }
  EXPECT_EQ(seen.size(), Golden().size());
}

TEST(JsonGoldenTest, ReadsTheTorchNpuFolderAndItsOverlapAnalysis) {
  const std::string folder = std::string(CPROF_FIXTURES_DIR) + "/ascend/text_level1/rank0_ascend_pt";
  auto t = Import(folder);
  ASSERT_TRUE(t.ok()) << t.status().message();
  Check("rank0_ascend_pt", *t,
        Golden().at("ascend/text_level1/rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/trace_view.json"));
  // The fixtures' known fact: step 50 of rank 0 spends 101,963.203 us in communication not
  // overlapped with computation (step_trace_time.csv), the sum of those Overlap Analysis slices.
  std::map<std::string, int64_t> sum;
  for (size_t i = 0; i < t->slices.size(); ++i) {
    if (t->tracks.kind[Index(t->slices.track_id[i])] == TrackKind::kAnalysis) {
      sum[std::string(t->Str(t->slices.name_id[i]))] += t->slices.dur_ns[i];
    }
  }
  EXPECT_EQ(sum["Communication(Not Overlapped)"], 101963203);
  EXPECT_EQ(sum["Computing"], 8873756);
  EXPECT_EQ(sum["Free"], 25744050);
  EXPECT_EQ(sum["Communication"], 105991878);
}

TEST(JsonGoldenTest, KeepsNanosecondDigitsOfKinetoTimestamps) {
  // ns_resolution_trace writes 1712195495519689.047-style ts; a double would lose the last digits.
  auto t = Import(std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/ns_resolution_trace/"
                  "rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  ASSERT_TRUE(t.ok()) << t.status().message();
  size_t not_whole_us = 0;
  for (int64_t ts : t->slices.ts_ns) not_whole_us += ts % 1000 != 0;
  EXPECT_GT(not_whole_us, 40000u);
  // baseTimeNanoseconds (tracelens, 2025) moves relative ts onto the epoch.
  auto h100 = Import(std::string(CPROF_FIXTURES_DIR) + "/kineto/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz");
  ASSERT_TRUE(h100.ok()) << h100.status().message();
  EXPECT_EQ(h100->MetadataText(meta::kBaseTimeNs), "1751410836000000000");
  EXPECT_GT(h100->start_ns, 1751410836000000000);
  EXPECT_LT(h100->start_ns, 1751410836000000000 + int64_t{86400} * 30 * 1000000000);
}

}  // namespace
}  // namespace cprof
