// Golden tests of the Nsight Systems importer against pipit's fixtures: every kernel, memcpy and
// CUDA API call of cloverleaf equals the enter/leave rows of its CSV exports, and the NVTX ranges
// of the saxpy MPI run come through with their names, domains and thread.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "base/byte_source.h"
#include "import/csv/csv_header.h"
#include "import/csv/csv_reader.h"
#include "import/import_trace.h"
#include "import/nsys/nsys_test_util.h"

namespace cprof {
namespace {

const std::string kDir = std::string(CPROF_FIXTURES_DIR) + "/nsys/";

// (start, end, key) intervals from a pipit enter/leave CSV; `key_cols` are joined with '|'.
std::vector<std::tuple<int64_t, int64_t, std::string>> ReadEnterLeave(const std::string& file,
                                                                      std::vector<std::string> key_cols) {
  auto text = ReadWholeFile(kDir + file);
  EXPECT_TRUE(text.ok());
  CsvReader r(*text, file);
  auto h = CsvHeader::Read(&r);
  EXPECT_TRUE(h.ok());
  int ev = h->Find({"Event Type"}), ts = h->Find({"Timestamp (ns)"}), match_ts = h->Find({"_matching_timestamp"});
  std::vector<int> keys;
  for (const auto& k : key_cols) keys.push_back(h->Find({k}));
  std::vector<std::tuple<int64_t, int64_t, std::string>> out;
  while (*r.Next()) {
    if (r.field(ev) != "Enter") continue;
    std::string key;
    for (int k : keys) key += std::string(r.field(k)) + "|";
    out.emplace_back(std::stoll(std::string(r.field(ts))), std::stoll(std::string(r.field(match_ts))), key);
  }
  std::sort(out.begin(), out.end());
  return out;
}

using nsys_test::ArgText;

TEST(NsysGolden, CloverleafKernelsAndMemcpyEqualGpuTraceCsv) {
  auto trace = ImportTrace(kDir + "cloverleaf-cuda.sqlite");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const Trace& t = *trace;
  EXPECT_EQ(t.MetadataText("source_format"), "nsys");
  EXPECT_EQ(t.MetadataText("nsys_version"), "2024.5.1.113");

  // pipit names kernels by shortName and memcpys by their copy kind.
  auto expected = ReadEnterLeave("cloverleaf_gpu_trace.csv", {"Name", "streamId"});
  std::vector<std::tuple<int64_t, int64_t, std::string>> got;
  int kernels = 0, memcpys = 0;
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    if (t.tracks.kind[Index(t.slices.track_id[i])] != TrackKind::kGpuStream) continue;
    std::string_view cat = t.Str(t.slices.category_id[i]);
    std::string name;
    if (cat == "kernel") {
      name = ArgText(t, i, "short_name");
      ++kernels;
    } else if (cat == "gpu_memcpy") {
      name = "CUDA_MEMCPY_KIND_" + ArgText(t, i, "copy_kind");
      std::transform(name.begin(), name.end(), name.begin(), ::toupper);
      ++memcpys;
    }
    got.emplace_back(t.slices.ts_ns[i], t.slice_end(i),
                     name + "|" + std::to_string(t.tracks.stream[Index(t.slices.track_id[i])]) + "|");
  }
  std::sort(got.begin(), got.end());
  EXPECT_EQ(kernels, 1312);
  EXPECT_EQ(memcpys, 279);
  ASSERT_EQ(got.size(), expected.size());
  EXPECT_TRUE(got == expected);
  for (size_t i = 0; i < got.size() && i < expected.size(); ++i) {
    if (got[i] != expected[i]) {
      ADD_FAILURE() << "first difference at " << i << ": " << std::get<2>(got[i]) << " vs " << std::get<2>(expected[i]);
      break;
    }
  }
}

TEST(NsysGolden, CloverleafApiCallsEqualApiTraceCsvWithLaunchFlows) {
  auto trace = ImportTrace(kDir + "cloverleaf-cuda.sqlite");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const Trace& t = *trace;
  auto expected = ReadEnterLeave("cloverleaf-cuda_api_trace.csv", {"Name", "Process", "Thread"});
  // nsys versioned names ("cudaLaunchKernel_v7000") are imported without the version suffix.
  for (auto& [s, e, key] : expected) {
    size_t v = key.find("_v");
    if (v != std::string::npos && v < key.find('|')) key.erase(v, key.find('|') - v);
  }
  std::sort(expected.begin(), expected.end());
  std::vector<std::tuple<int64_t, int64_t, std::string>> got;
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    if (t.Str(t.slices.category_id[i]) != "cuda_runtime") continue;
    TrackId tr = t.slices.track_id[i];
    got.emplace_back(t.slices.ts_ns[i], t.slice_end(i),
                     std::string(t.Str(t.slices.name_id[i])) + "|" + std::to_string(t.tracks.pid[Index(tr)]) + "|" +
                         std::to_string(t.tracks.tid[Index(tr)]) + "|");
  }
  std::sort(got.begin(), got.end());
  ASSERT_EQ(got.size(), 3048u);
  EXPECT_TRUE(got == expected);

  // Every kernel and memcpy is linked to the runtime call that launched it.
  int launch_flows = 0;
  for (size_t f = 0; f < t.flows.size(); ++f) {
    if (t.flows.kind[f] != FlowKind::kLaunch) continue;
    ++launch_flows;
    uint32_t out = Index(t.flows.out_slice_id[f]), in = Index(t.flows.in_slice_id[f]);
    EXPECT_EQ(t.slices.correlation_id[out], t.slices.correlation_id[in]);
  }
  EXPECT_EQ(launch_flows, 1312 + 279);
  EXPECT_EQ(t.stats.Get(ImportStat::nsys_unknown_string), 0);
  EXPECT_EQ(t.stats.Get(ImportStat::nsys_unmatched_correlation), 0);
}

TEST(NsysGolden, SaxpyNvtxRanges) {
  auto trace = ImportTrace(kDir + "saxpy-mpi-cuda.sqlite");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const Trace& t = *trace;
  EXPECT_EQ(t.MetadataText("nsys_schema_version"), "2.9.1");
  std::map<std::string, int> names;
  int64_t first_ts = -1, first_end = -1;
  std::string domain_of_send, thread_name;
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    if (t.Str(t.slices.category_id[i]) != "nvtx") continue;
    std::string name(t.Str(t.slices.name_id[i]));
    names[name]++;
    TrackId tr = t.slices.track_id[i];
    EXPECT_EQ(t.tracks.pid[Index(tr)], 1230493);
    EXPECT_EQ(t.tracks.tid[Index(tr)], 1230493);
    thread_name = t.Str(t.tracks.name_id[Index(tr)]);
    if (name == "MPI_Init") first_ts = t.slices.ts_ns[i], first_end = t.slice_end(i);
    if (name == "MPI_Send") domain_of_send = ArgText(t, i, "domain");
  }
  std::map<std::string, int> want = {{"MPI_Finalize", 1}, {"MPI_Init", 1}, {"MPI_Recv", 5}, {"MPI_Send", 10}, {"saxpy", 5}};
  EXPECT_EQ(names, want);
  EXPECT_EQ(first_ts, 65117824);
  EXPECT_EQ(first_end, 710796807);
  EXPECT_EQ(domain_of_send, "MPI");
  EXPECT_EQ(thread_name, "MPI Rank 0");  // from the NvtxThread event
  // Its kernels and memcpys still arrive, with launch flows, in the older schema.
  int kernels = 0;
  for (uint32_t i = 0; i < t.slices.size(); ++i) kernels += t.Str(t.slices.category_id[i]) == "kernel";
  EXPECT_EQ(kernels, 5);
}

}  // namespace
}  // namespace cprof
