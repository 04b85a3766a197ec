// Reproducers of what `make fuzz` (fuzz/fuzz_ascend_folder.cc, fuzz/fuzz_msprof.cc) found in the
// torch_npu and msprof folder readers, rebuilt as small folders at test time. Each test names the
// failure it guards against.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "import/import_trace.h"

namespace cprof {
namespace {
namespace fs = std::filesystem;

// A truncated 3-byte UTF-8 character and a lone Latin-1 byte: what a cut-off or non-UTF-8 table holds.
constexpr const char* kBadUtf8 = "Conv\xE4\xB8" "2D_\xE9";
constexpr const char* kReplacement = "\xEF\xBF\xBD";

class FolderFuzzRegressionTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cprof_fuzzreg_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  void Write(const fs::path& rel, const std::string& text) {
    fs::create_directories((dir_ / rel).parent_path());
    std::ofstream(dir_ / rel, std::ios::binary | std::ios::trunc) << text;
  }
  // The metadata JSON text `key` parses and holds U+FFFD where the bad bytes were.
  static void ExpectReplacedJson(const Trace& t, const char* key) {
    std::string text = t.MetadataText(key);
    ASSERT_FALSE(text.empty()) << key;
    EXPECT_TRUE(nlohmann::json::accept(text)) << text;
    EXPECT_NE(text.find(std::string("Conv") + kReplacement), std::string::npos) << text;
  }
  fs::path dir_;
};

// fuzz_ascend_folder crash-fc7fa545: op_statistic.csv with a non-UTF-8 op type threw
// nlohmann::type_error 316 out of the metadata serialization and aborted the import.
TEST_F(FolderFuzzRegressionTest, NonUtf8CellInTorchNpuSummaryTableIsReplacedNotFatal) {
  Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/op_statistic.csv",
        std::string("OP Type,Core Type,Count,Total Time(us)\n") + kBadUtf8 + ",AI_CORE,3,19.5\n");
  Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
        std::string("Name,Type,Accelerator Core,Start Time(us),Duration(us)\n") + kBadUtf8 +
            ",Conv2D,AI_CORE,1736408883704643.212\t,10.5\n");
  auto t = ImportTrace((dir_ / "rank0_ascend_pt").string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  ExpectReplacedJson(*t, "ascend_op_statistic");
  EXPECT_EQ(t->slices.size(), 1u);  // the kernel row, its raw name kept in the string pool
}

// fuzz_msprof crash-6e3d0331: the same throw from api_statistic_*.csv of an msprof folder.
TEST_F(FolderFuzzRegressionTest, NonUtf8CellInMsprofStatisticIsReplacedNotFatal) {
  Write("PROF_1/mindstudio_profiler_output/task_time_1.csv",
        "kernel_name,kernel_type,stream_id,task_id,task_time(us),task_start(us)\n"
        "MatMul_1,AI_CORE,3,12,10.5,1700000000000.125\n");
  Write("PROF_1/mindstudio_profiler_output/api_statistic_1.csv",
        std::string("Level,API Name,Time(us),Count\nacl,") + kBadUtf8 + ",474.41,4\n");
  auto t = ImportTrace((dir_ / "PROF_1").string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  ExpectReplacedJson(*t, "ascend_api_statistic");
  EXPECT_EQ(t->slices.size(), 1u);
}

// fuzz_msprof crash-03030d85 (and two more like it): an op_statistic row whose OP Type or Core
// Type is N/A (null in the table's JSON) made the op_statistic cross-check's json::value() throw
// type_error 302 and abort the import.
TEST_F(FolderFuzzRegressionTest, NullOpTypeInOpStatisticCrossCheckIsSkippedNotFatal) {
  Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv",
        "Name,Type,Accelerator Core,Start Time(us),Duration(us)\n"
        "Conv2D_1,Conv2D,AI_CORE,1736408883704643.212\t,10.5\n");
  Write("rank0_ascend_pt/ASCEND_PROFILER_OUTPUT/op_statistic.csv",
        "OP Type,Core Type,Count,Total Time(us)\nN/A,N/A,3,19.5\nConv2D,AI_CORE,1,10.5\n");
  auto t = ImportTrace((dir_ / "rank0_ascend_pt").string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  std::string checks = t->MetadataText("import_cross_checks");
  EXPECT_NE(checks.find("op_statistic"), std::string::npos) << checks;  // the check ran
  EXPECT_EQ(t->slices.size(), 1u);
}

}  // namespace
}  // namespace cprof
