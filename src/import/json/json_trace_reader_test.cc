// The JSON reader end to end on small inline traces: every phase, the Kineto, legacy and
// torch_npu dialects, and the model rows they become.
#include "import/json/json_trace_reader.h"

#include <gtest/gtest.h>

#include <map>

#include "import/json/json_test_util.h"

namespace cprof::json {
namespace {

using testing::CountTracks;
using testing::FindSlice;
using testing::ImportText;
using testing::KindOfSlice;

TEST(JsonReaderTest, CompleteAndBeginEndSlicesNest) {
  auto t = ImportText(R"([
    {"ph": "B", "name": "outer", "pid": 1, "tid": 2, "ts": 10},
    {"ph": "X", "name": "inner", "pid": 1, "tid": 2, "ts": 11, "dur": 2, "args": {"k": "v"}},
    {"ph": "B", "name": "b2", "pid": 1, "tid": 2, "ts": 14},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 15},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 20},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 21}
  ])");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->slices.size(), 3u);
  const int64_t outer = FindSlice(*t, "outer"), inner = FindSlice(*t, "inner"), b2 = FindSlice(*t, "b2");
  EXPECT_EQ(t->slices.dur_ns[outer], 10000);
  EXPECT_EQ(t->slices.dur_ns[b2], 1000);
  EXPECT_EQ(t->slices.depth[inner], 1u);
  EXPECT_EQ(t->slices.parent_id[inner], SliceId(static_cast<uint32_t>(outer)));
  EXPECT_EQ(t->SliceArg(inner, "k")->type, Value::Type::kString);
  EXPECT_EQ(t->stats.Get(ImportStat::unmatched_end), 1);
  EXPECT_EQ(KindOfSlice(*t, outer), TrackKind::kThread);
  EXPECT_EQ(t->MetadataText(meta::kSourceFormat), "chrome");
}

TEST(JsonReaderTest, InstantsByScope) {
  auto t = ImportText(R"({"traceEvents": [
    {"ph": "i", "name": "t", "pid": 1, "tid": 2, "ts": 1},
    {"ph": "I", "name": "t2", "pid": 1, "tid": 2, "ts": 2, "s": "t"},
    {"ph": "i", "name": "p", "pid": 1, "tid": 2, "ts": 3, "s": "p"},
    {"ph": "i", "name": "g", "pid": 1, "tid": 2, "ts": 4, "s": "g"}
  ]})");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->slices.size(), 4u);
  EXPECT_EQ(t->slices.dur_ns[FindSlice(*t, "t")], 0);
  EXPECT_EQ(t->slices.track_id[FindSlice(*t, "t")], t->slices.track_id[FindSlice(*t, "t2")]);
  EXPECT_EQ(KindOfSlice(*t, FindSlice(*t, "t")), TrackKind::kThread);
  EXPECT_EQ(KindOfSlice(*t, FindSlice(*t, "p")), TrackKind::kProcess);
  const TrackId g = t->slices.track_id[FindSlice(*t, "g")];
  EXPECT_EQ(t->Str(t->tracks.name_id[Index(g)]), "Global instants");
}

TEST(JsonReaderTest, CountersMakeOneTrackPerSeries) {
  auto t = ImportText(R"j([
    {"ph": "C", "name": "mem", "pid": 1, "ts": 1, "args": {"used": 10, "free": "5.5"}},
    {"ph": "C", "name": "mem", "pid": 1, "ts": 2, "args": {"used": 11, "bad": "x"}},
    {"ph": "C", "name": "mem", "pid": 2, "ts": 2, "args": {"used": 1}},
    {"ph": "C", "name": "Read", "pid": 1, "ts": 3, "args": {"Read(MB/s)": 2}},
    {"ph": "C", "name": "bw", "pid": 1, "ts": 3, "args": {"value": 7, "acc_id": 1}},
    {"ph": "C", "name": "bw", "pid": 1, "ts": 3, "args": {"value": 8, "acc_id": 2}}
  ])j");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->counters.size(), 7u);
  EXPECT_EQ(t->stats.Get(ImportStat::counter_non_numeric), 1);
  std::map<std::string, int> per_track;
  for (size_t i = 0; i < t->counters.size(); ++i) {
    const TrackId tr = t->counters.track_id[i];
    EXPECT_EQ(t->tracks.kind[Index(tr)], TrackKind::kCounter);
    per_track[std::to_string(t->tracks.pid[Index(tr)]) + " / " + std::string(t->Str(t->tracks.name_id[Index(tr)]))]++;
  }
  EXPECT_EQ(per_track.size(), 6u);
  EXPECT_EQ(per_track["1 / mem used"], 2) << ::testing::PrintToString(per_track);
  EXPECT_EQ(per_track["1 / mem free"], 1);
  EXPECT_EQ(per_track["2 / mem used"], 1);
  EXPECT_EQ(per_track["1 / bw acc_id=1"], 1);
  for (size_t i = 0; i < t->tracks.size(); ++i) {
    if (t->Str(t->tracks.name_id[i]) == "Read Read(MB/s)") {
      EXPECT_EQ(t->Str(t->tracks.unit_id[i]), "MB/s");
    }
  }
}

TEST(JsonReaderTest, MetadataNamesAndSortsTracks) {
  auto t = ImportText(R"([
    {"ph": "X", "name": "a", "pid": 5, "tid": 6, "ts": 1, "dur": 1},
    {"ph": "M", "name": "process_name", "pid": 5, "args": {"name": "python"}},
    {"ph": "M", "name": "process_sort_index", "pid": 5, "args": {"sort_index": 3}},
    {"ph": "M", "name": "thread_name", "pid": 5, "tid": 6, "args": {"name": "old"}},
    {"ph": "M", "name": "thread_name", "pid": 5, "tid": 6, "args": {"name": "main"}},
    {"ph": "M", "name": "thread_sort_index", "pid": 5, "tid": 6, "args": {"sort_index": -2}},
    {"ph": "M", "name": "process_labels", "pid": 5, "args": {"labels": "CPU"}}
  ])");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const TrackId thread = t->slices.track_id[0];
  EXPECT_EQ(t->TrackPath(thread), "python / main");
  EXPECT_EQ(t->tracks.sort_index[Index(thread)], -2);
  EXPECT_EQ(t->tracks.sort_index[Index(t->tracks.parent_id[Index(thread)])], 3);
}

TEST(JsonReaderTest, StringPidsGetStableSyntheticIdsAndNames) {
  const char* json = R"([
    {"ph": "X", "name": "a", "pid": "CPU functions", "tid": 1, "ts": 1, "dur": 1},
    {"ph": "X", "name": "b", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 1, "dur": 1}
  ])";
  auto t = ImportText(json);
  auto again = ImportText(json);
  ASSERT_TRUE(t.ok() && again.ok());
  const TrackId a = t->slices.track_id[FindSlice(*t, "a")], b = t->slices.track_id[FindSlice(*t, "b")];
  EXPECT_EQ(t->TrackPath(a), "CPU functions / thread " + std::to_string(Index(a)));
  EXPECT_EQ(t->TrackPath(b), "Spans / PyTorch Profiler");
  EXPECT_LT(t->tracks.pid[Index(a)], -(int64_t{1} << 33));
  EXPECT_EQ(t->tracks.pid[Index(a)], again->tracks.pid[Index(again->slices.track_id[FindSlice(*again, "a")])]);
  EXPECT_EQ(t->MetadataText(meta::kSourceFormat), "pytorch_legacy");
}

TEST(JsonReaderTest, FlowsBindEnclosingOrNextSliceAndFanOut) {
  auto t = ImportText(R"([
    {"ph": "X", "name": "launch", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
    {"ph": "s", "id": 7, "cat": "c", "name": "f", "pid": 1, "tid": 1, "ts": 12},
    {"ph": "f", "id": 7, "cat": "c", "name": "f", "pid": 1, "tid": 2, "ts": 19},
    {"ph": "X", "name": "next", "pid": 1, "tid": 2, "ts": 20, "dur": 1},
    {"ph": "X", "name": "k1", "pid": 1, "tid": 3, "ts": 30, "dur": 4},
    {"ph": "f", "id": 7, "cat": "c", "name": "f", "pid": 1, "tid": 3, "ts": 31, "bp": "e"},
    {"ph": "s", "id": 7, "cat": "other", "name": "f", "pid": 1, "tid": 1, "ts": 11},
    {"ph": "f", "id": 9, "cat": "c", "name": "f", "pid": 1, "tid": 3, "ts": 31, "bp": "e"}
  ])");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->flows.size(), 2u);
  const auto launch = SliceId(static_cast<uint32_t>(FindSlice(*t, "launch")));
  EXPECT_EQ(t->flows.out_slice_id[0], launch);
  EXPECT_EQ(t->flows.in_slice_id[0], SliceId(static_cast<uint32_t>(FindSlice(*t, "next"))));
  EXPECT_EQ(t->flows.out_slice_id[1], launch);
  EXPECT_EQ(t->flows.in_slice_id[1], SliceId(static_cast<uint32_t>(FindSlice(*t, "k1"))));
  // The 's' of another category never ends; the 'f' of id 9 never started.
  EXPECT_EQ(t->stats.Get(ImportStat::flow_unmatched), 2);
}

TEST(JsonReaderTest, AsyncSpansPairByIdAndCountUnmatchedEnds) {
  auto t = ImportText(R"([
    {"ph": "b", "cat": "net", "name": "req", "id": 1, "pid": 1, "tid": 1, "ts": 1},
    {"ph": "b", "cat": "net", "name": "req", "id": 2, "pid": 1, "tid": 2, "ts": 2},
    {"ph": "n", "cat": "net", "name": "req", "id": 1, "pid": 1, "ts": 3},
    {"ph": "e", "cat": "net", "name": "req", "id": 1, "pid": 1, "tid": 1, "ts": 5},
    {"ph": "e", "cat": "net", "name": "req", "id": 3, "pid": 1, "ts": 6},
    {"ph": "S", "cat": "old", "name": "legacy", "id": "0x5", "pid": 1, "ts": 7},
    {"ph": "T", "cat": "old", "name": "legacy", "id": "0x5", "pid": 1, "ts": 8},
    {"ph": "F", "cat": "old", "name": "legacy", "id": "0x5", "pid": 1, "ts": 9}
  ])");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->stats.Get(ImportStat::async_unmatched_end), 1);
  EXPECT_EQ(t->stats.Get(ImportStat::unclosed_begin), 1);  // id 2 never ends
  size_t req = 0;
  for (size_t i = 0; i < t->slices.size(); ++i) {
    if (t->Str(t->slices.name_id[i]) != "req") continue;
    ++req;
    EXPECT_EQ(KindOfSlice(*t, static_cast<int64_t>(i)), TrackKind::kAsync);
  }
  EXPECT_EQ(req, 3u);
  EXPECT_EQ(t->slices.dur_ns[FindSlice(*t, "legacy")], 2000);
  EXPECT_EQ(t->slices.dur_ns[FindSlice(*t, "req")], 4000);  // id 1: 1 -> 5
}

TEST(JsonReaderTest, CountsIgnoredUnknownAndIncompleteEvents) {
  auto t = ImportText(R"([
    {"ph": "P", "pid": 1, "ts": 1}, {"ph": "O", "id": 1, "pid": 1, "ts": 1}, {"ph": "N", "id": 1, "ts": 1},
    {"ph": "D", "id": 1, "ts": 1}, {"ph": "Q", "ts": 1}, {"ph": "X", "name": "no ts", "dur": 1},
    {"name": "no ph", "ts": 1}, {"ph": "X", "ts": 1}, {"ph": "X", "ts": 1, "dur": -5},
    {"ph": "X", "ts": "x", "dur": 1}, {"ph": "s", "ts": 1}
  ])");
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->slices.size(), 0u);
  EXPECT_EQ(t->stats.Get(ImportStat::json_ignored_phase), 4);
  EXPECT_EQ(t->stats.Get(ImportStat::json_unknown_phase), 1);
  EXPECT_EQ(t->stats.Get(ImportStat::json_missing_field), 4);
  EXPECT_EQ(t->stats.Get(ImportStat::negative_duration), 1);
  EXPECT_EQ(t->stats.Get(ImportStat::json_bad_field_type), 1);
}

// A Kineto trace in the 2024 layout: relative ts with baseTimeNanoseconds, device rows.
constexpr const char* kKineto = R"({
  "schemaVersion": 1,
  "deviceProperties": [{"id": 0, "name": "NVIDIA A100"}],
  "distributedInfo": {"backend": "nccl", "rank": 3, "world_size": 8},
  "baseTimeNanoseconds": 1700000000000000000,
  "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 10, "tid": 11, "ts": 100.000, "dur": 50.5,
     "args": {"External id": 5}},
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 10, "tid": 11, "ts": 110.250, "dur": 5,
     "args": {"External id": 5, "correlation": 77}},
    {"ph": "s", "id": 77, "pid": 10, "tid": 11, "ts": 110.250, "cat": "ac2g", "name": "ac2g"},
    {"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": 120.001, "dur": 30,
     "args": {"External id": 5, "device": 0, "stream": 7, "correlation": 77}},
    {"ph": "f", "id": 77, "pid": 0, "tid": 7, "ts": 120.001, "cat": "ac2g", "name": "ac2g", "bp": "e"},
    {"ph": "X", "cat": "python_function", "name": "py", "pid": 0, "tid": 0, "ts": 90, "dur": 100},
    {"ph": "s", "id": 1, "pid": 10, "tid": 11, "ts": 101, "cat": "fwdbwd", "name": "fwdbwd"},
    {"ph": "X", "cat": "cpu_op", "name": "MmBackward0", "pid": 10, "tid": 12, "ts": 300, "dur": 5},
    {"ph": "f", "id": 1, "pid": 10, "tid": 12, "ts": 301, "cat": "fwdbwd", "name": "fwdbwd", "bp": "e"},
    {"ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]", "pid": 10, "tid": 11, "ts": 105,
     "args": {"Total Reserved": 2048, "Total Allocated": 1024, "Bytes": -512, "Addr": 140000000000000,
              "Device Id": 0, "Device Type": 1}},
    {"ph": "i", "name": "[memory]", "pid": 10, "tid": 11, "ts": 106, "args": {"Bytes": 8}},
    {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
    {"name": "thread_name", "ph": "M", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}},
    {"ph": "X", "cat": "Trace", "ts": 90, "dur": 300, "pid": "Spans", "tid": "PyTorch Profiler", "name": "span"},
    {"name": "Record Window End", "ph": "i", "s": "g", "pid": "", "tid": "", "ts": 400}
  ],
  "traceName": "x.json", "displayTimeUnit": "ns"
})";

TEST(JsonReaderTest, KinetoDevicesCorrelationFlowsMemoryAndMetadata) {
  for (int threads : {1, 3}) {
    auto t = ImportText(kKineto, threads);
    ASSERT_TRUE(t.ok()) << t.status().message();
    const int64_t kernel = FindSlice(*t, "gemm");
    const TrackId stream = t->slices.track_id[kernel];
    EXPECT_EQ(t->tracks.kind[Index(stream)], TrackKind::kGpuStream);
    EXPECT_EQ(t->tracks.device[Index(stream)], 0);
    EXPECT_EQ(t->tracks.stream[Index(stream)], 7);
    EXPECT_EQ(t->TrackPath(stream), "GPU 0 / stream 7");
    EXPECT_EQ(t->slices.correlation_id[kernel], 77);
    EXPECT_EQ(t->slices.correlation_id[FindSlice(*t, "aten::mm")], 5);
    // python_function on pid 0 stays a host thread even though GPU 0 is pid 0 too.
    EXPECT_EQ(KindOfSlice(*t, FindSlice(*t, "py")), TrackKind::kThread);
    // Times: baseTimeNanoseconds + exact decimal us; displayTimeUnit changes nothing.
    EXPECT_EQ(t->slices.ts_ns[kernel], 1700000000000000000 + 120001);
    ASSERT_EQ(t->flows.size(), 2u);
    size_t launch = 0, fwdbwd = 0;
    for (size_t i = 0; i < t->flows.size(); ++i) {
      if (t->flows.kind[i] == FlowKind::kLaunch) {
        ++launch;
        EXPECT_EQ(t->flows.out_slice_id[i], SliceId(static_cast<uint32_t>(FindSlice(*t, "cudaLaunchKernel"))));
        EXPECT_EQ(t->flows.in_slice_id[i], SliceId(static_cast<uint32_t>(kernel)));
      } else if (t->flows.kind[i] == FlowKind::kFwdBwd) {
        ++fwdbwd;
      }
    }
    EXPECT_EQ(launch, 1u);
    EXPECT_EQ(fwdbwd, 1u);
    ASSERT_EQ(t->memory_events.size(), 1u);
    EXPECT_EQ(t->memory_events.bytes[0], -512);
    EXPECT_EQ(t->memory_events.device[0], 0);
    EXPECT_EQ(t->memory_events.address[0], 140000000000000u);
    EXPECT_EQ(t->memory_events.total_allocated[0], 1024);
    EXPECT_EQ(t->stats.Get(ImportStat::memory_event_malformed), 1);
    EXPECT_EQ(FindSlice(*t, "[memory]"), -1);
    EXPECT_EQ(t->MetadataText(meta::kSourceFormat), "kineto");
    EXPECT_EQ(t->Metadata(meta::kRank)->i, 3);
    EXPECT_EQ(t->Metadata(meta::kWorldSize)->i, 8);
    EXPECT_EQ(t->MetadataText(meta::kBaseTimeNs), "1700000000000000000");
    EXPECT_EQ(t->MetadataText(meta::kDeviceProperties), R"([{"id": 0, "name": "NVIDIA A100"}])");
    EXPECT_EQ(t->MetadataText("traceName"), "x.json");
    EXPECT_EQ(t->tracks.rank[Index(stream)], 3);
    EXPECT_EQ(t->stats.CountAtLeast(Severity::kError), 0);
  }
}

TEST(JsonReaderTest, Kineto2021StringTidsAndLegacyCudaRows) {
  auto t = ImportText(R"({"schemaVersion": 1, "traceEvents": [
    {"ph": "X", "cat": "Operator", "name": "aten::add", "pid": 9, "tid": "1234", "ts": 10, "dur": 10},
    {"ph": "X", "cat": "Runtime", "name": "cudaLaunchKernel", "pid": 9, "tid": "1234", "ts": 12, "dur": 2,
     "args": {"correlation": 3, "external id": 1}},
    {"ph": "s", "id": 3, "pid": 9, "tid": 1234, "ts": 12, "cat": "async", "name": "launch"},
    {"ph": "X", "cat": "Kernel", "name": "add_kernel", "pid": 0, "tid": "stream 7", "ts": 20, "dur": 3},
    {"ph": "f", "id": 3, "pid": 0, "tid": "stream 7", "ts": 20, "cat": "async", "name": "launch", "bp": "e"},
    {"ph": "X", "cat": "User", "name": "annot", "pid": 0, "tid": "stream 7 user", "ts": 19, "dur": 5}
  ]})");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const TrackId k = t->slices.track_id[FindSlice(*t, "add_kernel")];
  EXPECT_EQ(t->tracks.kind[Index(k)], TrackKind::kGpuStream);
  EXPECT_EQ(t->tracks.stream[Index(k)], 7);
  EXPECT_EQ(t->slices.track_id[FindSlice(*t, "annot")], k);
  EXPECT_EQ(t->tracks.tid[Index(t->slices.track_id[FindSlice(*t, "aten::add")])], 1234);
  ASSERT_EQ(t->flows.size(), 1u);
  EXPECT_EQ(t->flows.kind[0], FlowKind::kLaunch);

  auto legacy = ImportText(R"([
    {"name": "aten::mm", "ph": "X", "ts": 5, "dur": 10, "tid": 1, "pid": "CPU functions", "args": {}},
    {"name": "aten::mm", "ph": "s", "ts": 5, "tid": 1, "pid": "CPU functions", "id": 0, "cat": "cpu_to_cuda", "args": {}},
    {"name": "gemm", "ph": "f", "ts": 8, "tid": 0, "pid": "CUDA functions", "id": 0, "cat": "cpu_to_cuda", "args": {}},
    {"name": "gemm", "ph": "X", "ts": 8, "dur": 3, "tid": 0, "pid": "CUDA functions", "args": {}}
  ])");
  ASSERT_TRUE(legacy.ok()) << legacy.status().message();
  EXPECT_EQ(KindOfSlice(*legacy, FindSlice(*legacy, "gemm")), TrackKind::kGpuStream);
  ASSERT_EQ(legacy->flows.size(), 1u);  // the 's' and the 'f' carry different names
  EXPECT_EQ(legacy->flows.in_slice_id[0], SliceId(static_cast<uint32_t>(FindSlice(*legacy, "gemm"))));
  EXPECT_EQ(legacy->MetadataText(meta::kSourceFormat), "pytorch_legacy");
}

TEST(JsonReaderTest, TorchNpuGroupsDecimalStringsAndBigFlowIds) {
  // Data before the metadata that types its rows, as a writer may order it.
  auto t = ImportText(R"([
    {"ph": "X", "name": "aclnnMuls", "pid": 3096504, "tid": 3096504, "ts": "1736408883694699.510", "dur": 10.5, "cat": "cpu_op"},
    {"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 1736408883700059821, "pid": 3096504, "tid": 3096504, "ts": "1736408883694699.510", "cat": "async_npu"},
    {"ph": "X", "name": "MulAiCore", "pid": 3170820512, "tid": 2, "ts": "1736408883700059.821", "dur": 3, "args": {"Task Id": 8}},
    {"ph": "f", "bp": "e", "name": "torch_to_npu", "id": 1736408883700059821, "pid": 3170820512, "tid": 2, "ts": "1736408883700059.821", "cat": "async_npu"},
    {"ph": "s", "bp": "e", "name": "torch_to_npu", "id": 1736408883700059822, "pid": 3096504, "tid": 3096504, "ts": "1736408883694699.600", "cat": "async_npu"},
    {"ph": "X", "name": "hcom_allReduce", "pid": 3170820576, "tid": 0, "ts": "1736408883700070.000", "dur": 1},
    {"ph": "X", "name": "Computing", "pid": 3170820832, "tid": 0, "ts": "1736408883700059.821", "dur": 3},
    {"name": "AI Core Freq", "ts": "1736408883573887.920", "pid": 3170820544, "tid": 0, "args": {"MHz": 1800}, "ph": "C"},
    {"name": "process_name", "pid": 3170820512, "tid": 0, "args": {"name": "Ascend Hardware"}, "ph": "M"},
    {"name": "thread_name", "pid": 3170820512, "tid": 2, "args": {"name": "Stream 2"}, "ph": "M"},
    {"name": "process_name", "pid": 3170820576, "tid": 0, "args": {"name": "HCCL"}, "ph": "M"},
    {"name": "process_name", "pid": 3170820832, "tid": 0, "args": {"name": "Overlap Analysis"}, "ph": "M"},
    {"name": "process_name", "pid": 3096504, "tid": 0, "args": {"name": "Python"}, "ph": "M"}
  ])");
  ASSERT_TRUE(t.ok()) << t.status().message();
  const int64_t task = FindSlice(*t, "MulAiCore");
  const TrackId stream = t->slices.track_id[task];
  EXPECT_EQ(t->slices.ts_ns[task], 1736408883700059821);
  EXPECT_EQ(t->tracks.kind[Index(stream)], TrackKind::kNpuStream);
  EXPECT_EQ(t->tracks.device[Index(stream)], 0);
  EXPECT_EQ(t->tracks.stream[Index(stream)], 2);
  EXPECT_EQ(t->TrackPath(stream), "NPU 0 / Stream 2");
  EXPECT_EQ(KindOfSlice(*t, FindSlice(*t, "hcom_allReduce")), TrackKind::kCommunication);
  EXPECT_EQ(KindOfSlice(*t, FindSlice(*t, "Computing")), TrackKind::kAnalysis);
  EXPECT_EQ(KindOfSlice(*t, FindSlice(*t, "aclnnMuls")), TrackKind::kThread);
  ASSERT_EQ(t->flows.size(), 1u);
  EXPECT_EQ(t->flows.kind[0], FlowKind::kHostToDevice);
  EXPECT_EQ(t->flows.in_slice_id[0], SliceId(static_cast<uint32_t>(task)));
  EXPECT_EQ(t->stats.Get(ImportStat::flow_unmatched), 1);  // id ...822 differs only above 2^53
  EXPECT_EQ(t->counters.size(), 1u);
  EXPECT_EQ(t->MetadataText(meta::kSourceFormat), "torch_npu");
}

TEST(JsonReaderTest, ReadsGzipAndGivesTheSameTraceOnAnyThreadCount) {
  testing::TempFile gz(kKineto, ".json.gz", /*gzip=*/true);
  auto a = testing::ImportFile(gz.path(), 1);
  auto b = testing::ImportFile(gz.path(), 4);
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_EQ(a->slices.ts_ns, b->slices.ts_ns);
  EXPECT_EQ(a->slices.name_id, b->slices.name_id);
  EXPECT_EQ(a->flows.size(), b->flows.size());
}

void ExpectImportError(std::string_view json, std::string_view needle, bool gzip = false) {
  testing::TempFile f(json, gzip ? ".json.gz" : ".json", gzip);
  auto t = testing::ImportFile(f.path(), 2);
  ASSERT_FALSE(t.ok()) << json;
  EXPECT_EQ(t.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(t.status().message().find(f.path()), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find(needle), std::string::npos) << t.status().message() << "\nwanted: " << needle;
  EXPECT_EQ(t.status().message().find('\n'), std::string::npos);
}

TEST(JsonReaderTest, BadInputIsAOneLineErrorNamingFileAndPlace) {
  ExpectImportError("", "empty file");
  ExpectImportError("[{\"ph\": \"X\", \"ts\": 1, \"dur\": 2},\n{\"ph\": \"X\", \"ts\": ", "byte 33: truncated inside event #1");
  ExpectImportError("[{\"ph\": \"X\", \"ts\": 1}, {\"ph\": \"X\" \"ts\": 1}]", "(event #1)");
  ExpectImportError("[{\"ph\": \"X\", \"name\": \"\xff\xfe\"}]", "(event #0): The input is not valid UTF-8");
  ExpectImportError("{\"traceEvents\": [], \"deviceProperties\": [1,]}", "the top-level member \"deviceProperties\"");
  ExpectImportError("[{\"ph\": \"X\"}, \"str\"]", "event #1 is not a JSON object");
  ExpectImportError("{\"traceEvents\": [{\"ph\": \"X\"}]", "decompressed data", /*gzip=*/true);
  ExpectImportError("\x1f\x8b garbage", "gzip");
}

TEST(JsonReaderTest, ReadsATorchNpuFolder) {
  auto t = testing::ImportFile(std::string(CPROF_FIXTURES_DIR) + "/ascend/text_level1/rank1_ascend_pt", 2);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->Metadata(meta::kRank)->i, 1);
  EXPECT_EQ(CountTracks(*t, TrackKind::kNpuStream), 4u);
  EXPECT_NE(t->MetadataText(meta::kSourcePath).find("ASCEND_PROFILER_OUTPUT/trace_view.json"), std::string::npos);
}

}  // namespace
}  // namespace cprof::json
