// Bad input and partial folders for the torch_npu and msprof readers, and an msprof PROF_*
// folder built at test time from the torch_npu fixture in msprof's documented layout (there is no
// msprof fixture): split timeline files, op_summary/op_statistic/task_time CSVs, device_N/info.json.N.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/byte_source.h"
#include "import/import_trace.h"

namespace cprof {
namespace {
namespace fs = std::filesystem;

const fs::path kRank0 = fs::path(CPROF_FIXTURES_DIR) / "ascend/text_level1/rank0_ascend_pt";

class FolderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cprof_folder_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // A writable copy of the rank-0 fixture.
  fs::path CopyRank0() {
    fs::path dst = dir_ / "rank0_ascend_pt";
    fs::copy(kRank0, dst, fs::copy_options::recursive);
    for (auto& e : fs::recursive_directory_iterator(dst)) {
      fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
    }
    fs::permissions(dst, fs::perms::owner_write, fs::perm_options::add);
    return dst;
  }
  static std::string Read(const fs::path& p) { return *ReadWholeFile(p.string()); }
  static void Write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
  }
  fs::path dir_;
};

TEST_F(FolderTest, UnknownHeaderVariantIsReportedAndTheRestImports) {
  fs::path rank = CopyRank0();
  fs::path kd = rank / "ASCEND_PROFILER_OUTPUT/kernel_details.csv";
  std::string text = Read(kd);
  text.replace(text.find("Start Time(us)"), 14, "Begin Stamp");
  Write(kd, text);
  auto t = ImportTrace(rank.string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::string problems = t->MetadataText("import_problems");
  EXPECT_NE(problems.find("kernel_details.csv: line 1: no column 'Start Time(us)'"), std::string::npos) << problems;
  EXPECT_EQ(t->stats.Get(ImportStat::profiler_file_unreadable), 1);
  EXPECT_FALSE(t->MetadataText("ascend_step_trace").empty());  // the other tables still came in
  EXPECT_GT(t->slices.size(), 4000u);
}

TEST_F(FolderTest, BadRowsAreSkippedAndNamed) {
  fs::path rank = CopyRank0();
  fs::path kd = rank / "ASCEND_PROFILER_OUTPUT/kernel_details.csv";
  std::string text = Read(kd);
  size_t line2 = text.find('\n') + 1;
  size_t start = text.find("1736408883704643.212", line2);
  text.replace(start, 20, "not-a-time");
  Write(kd, text);
  auto t = ImportTrace(rank.string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->stats.Get(ImportStat::csv_bad_row), 1);
  std::string problems = t->MetadataText("import_problems");
  EXPECT_NE(problems.find("kernel_details.csv: line 2, column 9 ('Start Time(us)'): expected a decimal time"),
            std::string::npos)
      << problems;
}

TEST_F(FolderTest, MissingFilesAreListed) {
  fs::path rank = dir_ / "rank7_ascend_pt";
  fs::create_directories(rank / "ASCEND_PROFILER_OUTPUT");
  fs::copy_file(kRank0 / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv", rank / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
  Write(rank / "profiler_info_7.json", R"({"rank_id": 7})");
  auto t = ImportTrace(rank.string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->MetadataText("rank"), "7");
  std::string missing = t->MetadataText("missing_files");
  for (const char* f : {"trace_view.json", "kernel_details.csv", "communication.json", "profiler_metadata.json"}) {
    EXPECT_NE(missing.find(f), std::string::npos) << f << " in " << missing;
  }
  EXPECT_GE(t->stats.Get(ImportStat::profiler_file_missing), 10);
  EXPECT_FALSE(t->MetadataText("ascend_step_trace").empty());
}

TEST_F(FolderTest, BrokenCommunicationJsonIsAProblemNotAFailure) {
  fs::path rank = CopyRank0();
  Write(rank / "ASCEND_PROFILER_OUTPUT/communication.json", "{\"step50\": {\"collective\": ");
  auto t = ImportTrace(rank.string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::string problems = t->MetadataText("import_problems");
  EXPECT_NE(problems.find("communication.json: not valid JSON"), std::string::npos) << problems;
}

TEST_F(FolderTest, CommunicationJsonThatIsNotAnObjectIsAProblemNamingTheFile) {
  fs::path rank = CopyRank0();
  Write(rank / "ASCEND_PROFILER_OUTPUT/communication.json", "[1, 2]");
  auto t = ImportTrace(rank.string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::string problems = t->MetadataText("import_problems");
  EXPECT_NE(problems.find("communication.json: expected a JSON object of steps"), std::string::npos) << problems;
}

TEST_F(FolderTest, BrokenTraceViewFailsWithTheFileName) {
  fs::path rank = CopyRank0();
  Write(rank / "ASCEND_PROFILER_OUTPUT/trace_view.json", "[{\"ph\": \"X\", \"ts\": ");
  auto t = ImportTrace(rank.string());
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("trace_view.json"), std::string::npos) << t.status().message();
}

TEST_F(FolderTest, DetectionErrors) {
  auto empty = ImportTrace(dir_.string());
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().code(), StatusCode::kInvalidInput);
  // A folder of ranks points at `cluster`.
  auto ranks = ImportTrace((fs::path(CPROF_FIXTURES_DIR) / "ascend/text_level1").string());
  ASSERT_FALSE(ranks.ok());
  EXPECT_NE(ranks.status().message().find("cann-profiler cluster"), std::string::npos) << ranks.status().message();
  // An SQLite file that is neither nsys nor torch_npu.
  fs::path db = dir_ / "other.sqlite";
  sqlite3* h = nullptr;
  ASSERT_EQ(sqlite3_open(db.c_str(), &h), SQLITE_OK);
  sqlite3_exec(h, "CREATE TABLE foo (x INTEGER); INSERT INTO foo VALUES (1);", nullptr, nullptr, nullptr);
  sqlite3_close(h);
  auto other = ImportTrace(db.string());
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.status().message().find("neither an Nsight Systems export nor a torch_npu export"), std::string::npos);
  EXPECT_NE(other.status().message().find("other.sqlite"), std::string::npos);
  // A truncated SQLite file.
  std::string bytes = Read(fs::path(CPROF_FIXTURES_DIR) / "nsys/saxpy-mpi-cuda.sqlite");
  Write(dir_ / "cut.sqlite", bytes.substr(0, 4096));
  auto cut = ImportTrace((dir_ / "cut.sqlite").string());
  ASSERT_FALSE(cut.ok());
  EXPECT_NE(cut.status().message().find("cut.sqlite"), std::string::npos) << cut.status().message();
}

// msprof's layout, built from the torch_npu fixture: PROF_*/mindstudio_profiler_output with the
// timeline split in two slice files, op_summary with msprof's header spellings, op_statistic,
// and device_0/info.json.0 naming the rank.
fs::path MakeMsprofFolder(const fs::path& dir, bool with_timeline) {
  fs::path prof = dir / "PROF_000001_20250101000000_ABCDEFGHIJ";
  fs::path out = prof / "mindstudio_profiler_output";
  fs::create_directories(out);
  fs::create_directories(prof / "device_0");
  std::ofstream(prof / "device_0/info.json.0") << R"({"rank_id": 3, "DeviceInfo": [{"id": 0}]})";
  const fs::path src = kRank0 / "ASCEND_PROFILER_OUTPUT";
  if (with_timeline) {
    auto events = nlohmann::json::parse(*ReadWholeFile((src / "trace_view.json").string()));
    nlohmann::json a = nlohmann::json::array(), b = nlohmann::json::array();
    size_t i = 0;
    for (auto& e : events) {
      if (e.value("ph", "") == "M") {
        a.push_back(e), b.push_back(e);  // metadata in every slice
      } else {
        (i++ % 2 ? b : a).push_back(e);
      }
    }
    std::ofstream(out / "msprof_slice_0_20250101000000.json") << a.dump();
    std::ofstream(out / "msprof_slice_1_20250101000000.json") << b.dump();
  }
  std::string kd = *ReadWholeFile((src / "kernel_details.csv").string());
  for (auto [from, to] : {std::pair{"Step Id,", "Device_id,"}, {",Name,", ",Op Name,"}, {",Type,", ",OP Type,"},
                          {"Accelerator Core", "Task Type"}, {"Start Time(us)", "Task Start Time(us)"},
                          {"Duration(us)", "Task Duration(us)"}, {"Wait Time(us)", "Task Wait Time(us)"},
                          {"Block Dim", "Block Num"}}) {
    size_t p = kd.find(from);
    if (p < kd.find('\n')) kd.replace(p, std::string(from).size(), to);
  }
  // Device_id replaces Step Id: every row's first cell "50" becomes "0".
  std::string rows;
  size_t pos = kd.find('\n') + 1;
  rows = kd.substr(0, pos);
  while (pos < kd.size()) {
    size_t comma = kd.find(',', pos);
    size_t nl = kd.find('\n', pos);
    rows += "0" + kd.substr(comma, nl - comma + 1);
    pos = nl + 1;
  }
  std::ofstream(out / "op_summary_20250101000000.csv") << rows;
  fs::copy_file(src / "op_statistic.csv", out / "op_statistic_20250101000000.csv");
  std::ofstream(out / "task_time_20250101000000.csv")
      << "Device_id,kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us),task_stop(us)\n"
         "0,trans_TransData_0,KERNEL_AIVEC,2,11051,53.741,1736408883704643.212\t,1736408883704696.953\t\n"
         "0,Conv2D1,KERNEL_AICORE,2,11053,313.886,1736408883704903.918\t,1736408883705217.804\t\n";
  return prof;
}

TEST_F(FolderTest, MsprofSplitTimelineWithOpSummary) {
  fs::path prof = MakeMsprofFolder(dir_, /*with_timeline=*/true);
  auto t = ImportTrace(prof.string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->MetadataText("source_format"), "msprof");
  EXPECT_EQ(t->MetadataText("rank"), "3");
  EXPECT_EQ(t->MetadataText("import_problems"), "");
  EXPECT_EQ(t->stats.Get(ImportStat::ascend_kernel_unmatched), 0);
  EXPECT_EQ(t->stats.Get(ImportStat::ascend_op_statistic_mismatch), 0) << t->MetadataText("import_cross_checks");
  int with_pmu = 0, block_dim = 0;
  for (uint32_t i = 0; i < t->slices.size(); ++i) {
    if (t->SliceArg(i, "aiv_vec_ratio")) ++with_pmu;
    if (t->SliceArg(i, "Block Dim")) ++block_dim;  // "Block Num" in op_summary, canonical key
  }
  EXPECT_EQ(with_pmu, 185);
  EXPECT_EQ(block_dim, 191);
  // Both halves of the timeline arrived: as many device tasks as the single file has.
  auto single = ImportTrace(kRank0.string());
  ASSERT_TRUE(single.ok());
  auto count_npu = [](const Trace& tr) {
    size_t n = 0;
    for (uint32_t i = 0; i < tr.slices.size(); ++i) n += tr.tracks.kind[Index(tr.slices.track_id[i])] == TrackKind::kNpuStream;
    return n;
  };
  EXPECT_EQ(count_npu(*t), count_npu(*single));
}

TEST_F(FolderTest, MsprofTaskTimeWithoutTimeline) {
  fs::path prof = MakeMsprofFolder(dir_, /*with_timeline=*/false);
  auto t = ImportTrace((prof / "mindstudio_profiler_output").string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_NE(t->MetadataText("missing_files").find("msprof_*.json"), std::string::npos);
  // task_time's two rows are device tasks that op_summary annotates (no duplicates); op_summary's
  // other rows become tasks of their own: 187 on NPU streams (the 4 HCCL rows go to communication).
  size_t npu = 0, annotated = 0;
  for (uint32_t i = 0; i < t->slices.size(); ++i) {
    if (t->tracks.kind[Index(t->slices.track_id[i])] != TrackKind::kNpuStream) continue;
    ++npu;
    annotated += t->SliceArg(i, "Task Id") && t->SliceArg(i, "OP Type") == std::nullopt && t->SliceArg(i, "Type");
  }
  EXPECT_EQ(npu, 187u);
  EXPECT_EQ(annotated, 2u);
}

}  // namespace
}  // namespace cprof
