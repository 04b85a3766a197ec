// Unit tests of the Nsight Systems importer on small hand-made exports: the memcpy and memset rows
// (no fixture has a memset) land on their device's stream track with their arguments.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "import/import_trace.h"
#include "import/nsys/nsys_test_util.h"
#include "testing/test_dir.h"

namespace cprof {
namespace {

std::string MakeExport(const std::filesystem::path& tmp, const std::string& sql) {
  const std::string path = (tmp / "copies.sqlite").string();
  sqlite3* db = nullptr;
  EXPECT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_free(err);
  sqlite3_close(db);
  return path;
}

// An export's string table and its memcpy table, empty.
constexpr char kMemcpyTable[] =
    "CREATE TABLE StringIds(id INTEGER, value TEXT);"
    "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY(start, end, deviceId, streamId, correlationId, globalPid, "
    "bytes, copyKind, srcKind, dstKind);";

// An argument, "-" when absent.
std::string Arg(const Trace& t, uint32_t row, std::string_view key) {
  std::string text = nsys_test::ArgText(t, row, key);
  return text.empty() ? "-" : text;
}

TEST(NsysSqliteReaderTest, MemcpyAndMemsetRowsKeepTheirArguments) {
  const std::filesystem::path tmp = TestDir("tmp");
  const std::string path = MakeExport(
      tmp,
      std::string(kMemcpyTable) +
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1000, 3000, 0, 7, 11, 0, 4096, 1, 0, 2),"
      " (5000, 5500, 1, 9, NULL, 0, NULL, 8, 2, 2);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET(start, end, deviceId, streamId, correlationId, globalPid, "
      "bytes, value);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (4000, 4200, 0, 7, 12, 0, 256, 0),"
      " (6000, 6100, 0, 7, 13, 0, 64, NULL);");
  auto trace = ImportTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const Trace& t = *trace;
  std::vector<std::string> got;
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    const uint32_t track = Index(t.slices.track_id[i]);
    if (t.tracks.kind[track] != TrackKind::kGpuStream) continue;
    got.push_back(std::string(t.Str(t.slices.name_id[i])) + "|" + std::string(t.Str(t.slices.category_id[i])) +
                  "|" + std::to_string(t.slices.ts_ns[i]) + "+" + std::to_string(t.slices.dur_ns[i]) +
                  "|stream " + std::to_string(t.tracks.stream[track]) + "|corr " + Arg(t, i, "correlation") +
                  "|bytes " + Arg(t, i, "bytes") + "|kind " + Arg(t, i, "copy_kind") + "|value " +
                  Arg(t, i, "value") + "|device " + Arg(t, i, "device"));
  }
  std::sort(got.begin(), got.end());
  const std::vector<std::string> want = {
      "Memcpy DtoD|gpu_memcpy|5000+500|stream 9|corr -|bytes -|kind DtoD|value -|device 1",
      "Memcpy HtoD|gpu_memcpy|1000+2000|stream 7|corr 11|bytes 4096|kind HtoD|value -|device 0",
      "Memset|gpu_memset|4000+200|stream 7|corr 12|bytes 256|kind -|value 0|device 0",
      "Memset|gpu_memset|6000+100|stream 7|corr 13|bytes 64|kind -|value -|device 0",
  };
  EXPECT_EQ(got, want);
}

// A start or end that is text or a blob read as 0 through sqlite3_column_int64: the kernel got
// ts 0 and a duration of its end, with "no problems". Such rows are dropped and counted.
TEST(NsysSqliteReaderTest, TimestampsThatAreNotNumbersAreDroppedAndCounted) {
  const std::filesystem::path tmp = TestDir("tmp");
  const std::string path = MakeExport(
      tmp,
      std::string(kMemcpyTable) +
      "INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (1000, 3000, 0, 7, 11, 0, 4096, 1, 0, 2),"
      " ('abc', 5500, 1, 9, NULL, 0, NULL, 8, 2, 2), (6000, x'00', 1, 9, NULL, 0, NULL, 8, 2, 2),"
      " (7000.0, 7500.0, 1, 9, NULL, 0, NULL, 8, 2, 2);");
  auto trace = ImportTrace(path);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_EQ(trace->stats.Get(ImportStat::nsys_bad_timestamp), 2);
  std::vector<int64_t> starts(trace->slices.ts_ns.begin(), trace->slices.ts_ns.end());
  std::sort(starts.begin(), starts.end());
  EXPECT_EQ(starts, (std::vector<int64_t>{1000, 7000}));
}

}  // namespace
}  // namespace cprof
