// Hostile inputs through the real import path (ImportTrace), generated at test time: deep nesting,
// bad numbers, end-before-begin, duplicate ids, flow cycles, invalid UTF-8, CSV with NULs and ragged
// rows, SQLite files with the wrong schema, empty files, a directory where a file belongs, and the
// memory and decompression limits. Each input must give a clear error (file, place, reason) or a
// correct partial result; which one is asserted per case. Truncation at every byte / line is in
// hostile_truncation_test.cc; the large cases (10^7 events, the decompression bomb, a 100 MB name)
// in hostile_input_slow_test.cc.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "base/byte_size.h"
#include "base/byte_source.h"
#include "import/hostile_input_test_util.h"
#include "import/import_memory.h"
#include "import/import_trace.h"
#include "import/json/json_test_util.h"
#include "model/trace_memory.h"

namespace cprof {
namespace {

using hostile_test::ExpectClearError;
using hostile_test::SmallTorchNpuFolder;
using hostile_test::WriteFile;
using json::testing::TempFile;
namespace fs = std::filesystem;

TEST(HostileInputTest, DeepNestingIsAnErrorNotAStackOverflow) {
  constexpr size_t kDepth = 1'000'000;
  const std::string open(kDepth, '['), close(kDepth, ']');
  // As the whole document, as an event's args, and as a top-level member of the object form.
  const std::string docs[] = {
      open + close,
      R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"deep": )" + open + close +
          "}}]",
      R"({"deep": )" + open + close +
          R"(, "traceEvents": [{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})",
      R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"deep": )" +
          open,  // never closed
  };
  for (size_t i = 0; i < std::size(docs); ++i) {
    TempFile f(docs[i]);
    auto t = ImportTrace(f.path());
    ASSERT_FALSE(t.ok()) << "document " << i;
    ExpectClearError(t.status(), f.path(), fmt::format("document {}", i));
  }
  // Nesting within the limit is kept, as JSON text.
  const std::string ok_doc =
      R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "args": {"deep": )" +
      std::string(100, '[') + std::string(100, ']') + "}}]";
  TempFile f(ok_doc);
  auto t = ImportTrace(f.path());
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->slices.size(), 1u);
}

TEST(HostileInputTest, BadTimestampsAndDurationsAreSkippedAndCounted) {
  auto t = [] {
    TempFile f(R"([
      {"ph": "X", "name": "good", "pid": 1, "tid": 1, "ts": 10, "dur": 5},
      {"ph": "X", "name": "nan_string", "pid": 1, "tid": 1, "ts": "NaN", "dur": 5},
      {"ph": "X", "name": "inf_string", "pid": 1, "tid": 1, "ts": 10, "dur": "Infinity"},
      {"ph": "X", "name": "huge_ts", "pid": 1, "tid": 1, "ts": 99999999999999999999999, "dur": 5},
      {"ph": "X", "name": "exp_ts", "pid": 1, "tid": 1, "ts": 1e300, "dur": 5},
      {"ph": "X", "name": "beyond_double", "pid": 1, "tid": 1, "ts": 1e999, "dur": 5},
      {"ph": "X", "name": "huge_dur", "pid": 1, "tid": 1, "ts": 10, "dur": 1.7e308},
      {"ph": "X", "name": "near_max", "pid": 1, "tid": 1, "ts": 9223372036854775, "dur": 9223372036854775},
      {"ph": "X", "name": "negative_ts", "pid": 1, "tid": 1, "ts": -50, "dur": 5},
      {"ph": "X", "name": "negative_dur", "pid": 1, "tid": 1, "ts": 20, "dur": -5},
      {"ph": "X", "name": "bool_ts", "pid": 1, "tid": 1, "ts": true, "dur": 5},
      {"ph": "C", "name": "ctr", "pid": 1, "ts": 12, "args": {"v": "NaN", "w": 1e999}},
      {"ph": "X", "name": "good2", "pid": 1, "tid": 1, "ts": 30, "dur": 1}
    ])");
    return ImportTrace(f.path());
  }();
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_GE(json::testing::FindSlice(*t, "good"), 0);
  EXPECT_GE(json::testing::FindSlice(*t, "good2"), 0);
  EXPECT_GE(json::testing::FindSlice(*t, "negative_ts"), 0);  // before the epoch is still a time
  for (const char* bad : {"nan_string", "inf_string", "huge_ts", "exp_ts", "beyond_double", "huge_dur",
                          "bool_ts", "near_max"}) {
    EXPECT_LT(json::testing::FindSlice(*t, bad), 0) << bad;
  }
  EXPECT_GT(t->stats.Get(ImportStat::timestamp_out_of_range) + t->stats.Get(ImportStat::json_bad_field_type),
            4);
  // Whatever was kept has an end that does not overflow, and the span is ordered.
  for (size_t i = 0; i < t->slices.size(); ++i) {
    int64_t end;
    EXPECT_FALSE(__builtin_add_overflow(t->slices.ts_ns[i], std::max<int64_t>(0, t->slices.dur_ns[i]), &end))
        << t->Str(t->slices.name_id[i]);
    EXPECT_GE(t->slices.dur_ns[i], -1) << t->Str(t->slices.name_id[i]);
  }
  EXPECT_LE(t->start_ns, t->end_ns);
  // A bare NaN (what Python's json.dumps writes) is not JSON, but only its field is unusable:
  // that event is skipped and counted, the others kept.
  TempFile bare(R"([{"ph": "X", "name": "a", "pid": 1, "tid": 1, "ts": NaN, "dur": 5},
                    {"ph": "X", "name": "b", "pid": 1, "tid": 1, "ts": 1, "dur": -Infinity},
                    {"ph": "X", "name": "c", "pid": 1, "tid": 1, "ts": 1, "dur": 1}])");
  auto e = ImportTrace(bare.path());
  ASSERT_TRUE(e.ok()) << e.status().message();
  EXPECT_EQ(e->slices.size(), 1u);
  EXPECT_EQ(e->stats.Get(ImportStat::json_bad_field_type), 2);
}

TEST(HostileInputTest, TimesPastTwoToThe62NsAreDroppedSoSpansFit) {
  // 9.2e15 us is 9.2e18 ns: representable, but the span from -9.2e18 to +9.2e18 is not.
  TempFile f(R"([
    {"ph": "X", "name": "far_past", "pid": 1, "tid": 1, "ts": -9223372036854775, "dur": 5},
    {"ph": "X", "name": "far_future", "pid": 1, "tid": 1, "ts": 9223372036854000, "dur": 5},
    {"ph": "B", "name": "far_begin", "pid": 1, "tid": 2, "ts": 9000000000000000},
    {"ph": "E", "pid": 1, "tid": 2, "ts": 9000000000000001},
    {"ph": "C", "name": "far_counter", "pid": 1, "ts": -9000000000000000, "args": {"v": 1}},
    {"ph": "X", "name": "past", "pid": 1, "tid": 1, "ts": -4000000000000000, "dur": 5},
    {"ph": "X", "name": "future", "pid": 1, "tid": 1, "ts": 4000000000000000, "dur": 5}
  ])");
  auto t = ImportTrace(f.path());
  ASSERT_TRUE(t.ok()) << t.status().message();
  for (const char* gone : {"far_past", "far_future", "far_begin"})
    EXPECT_LT(json::testing::FindSlice(*t, gone), 0) << gone;
  EXPECT_GE(json::testing::FindSlice(*t, "past"), 0);
  EXPECT_GE(json::testing::FindSlice(*t, "future"), 0);
  EXPECT_EQ(t->counters.size(), 0u);
  EXPECT_EQ(t->stats.Get(ImportStat::timestamp_out_of_range), 4);
  int64_t span;
  EXPECT_FALSE(__builtin_sub_overflow(t->end_ns, t->start_ns, &span));
  EXPECT_EQ(span, 8'000'000'000'000'005'000);
}

TEST(HostileInputTest, ABaseTimePastTheRangeLeavesTimesRelative) {
  TempFile f(R"({"baseTimeNanoseconds": 9000000000000000000, "traceEvents": [
    {"ph": "X", "cat": "cpu_op", "name": "a", "pid": 1, "tid": 1, "ts": 1, "dur": 1}]})");
  auto t = ImportTrace(f.path());
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->slices.size(), 1u);
  EXPECT_EQ(t->slices.ts_ns[0], 1000);  // not shifted into overflow
  EXPECT_EQ(t->stats.Get(ImportStat::timestamp_out_of_range), 1);
}

TEST(HostileInputTest, EndBeforeBeginDuplicateIdsAndFlowCyclesImport) {
  TempFile f(R"([
    {"ph": "B", "name": "backwards", "pid": 1, "tid": 1, "ts": 100},
    {"ph": "E", "pid": 1, "tid": 1, "ts": 50},
    {"ph": "b", "name": "async", "id": 5, "cat": "c", "pid": 1, "tid": 1, "ts": 10},
    {"ph": "b", "name": "async", "id": 5, "cat": "c", "pid": 1, "tid": 1, "ts": 20},
    {"ph": "e", "name": "async", "id": 5, "cat": "c", "pid": 1, "tid": 1, "ts": 5},
    {"ph": "X", "name": "A", "pid": 1, "tid": 2, "ts": 200, "dur": 10},
    {"ph": "X", "name": "B", "pid": 1, "tid": 3, "ts": 200, "dur": 10},
    {"ph": "s", "id": 1, "pid": 1, "tid": 2, "ts": 201, "cat": "x", "name": "x"},
    {"ph": "f", "id": 1, "pid": 1, "tid": 3, "ts": 202, "cat": "x", "name": "x", "bp": "e"},
    {"ph": "s", "id": 2, "pid": 1, "tid": 3, "ts": 203, "cat": "x", "name": "x"},
    {"ph": "f", "id": 2, "pid": 1, "tid": 2, "ts": 204, "cat": "x", "name": "x", "bp": "e"},
    {"ph": "s", "id": 3, "pid": 1, "tid": 2, "ts": 205, "cat": "x", "name": "x"},
    {"ph": "f", "id": 3, "pid": 1, "tid": 2, "ts": 206, "cat": "x", "name": "x", "bp": "e"},
    {"ph": "s", "id": 1, "pid": 1, "tid": 2, "ts": 207, "cat": "x", "name": "x"},
    {"ph": "s", "id": 1, "pid": 1, "tid": 2, "ts": 208, "cat": "x", "name": "x"},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 300, "dur": 3, "args": {"correlation": 9, "stream": 7, "device": 0}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 310, "dur": 3, "args": {"correlation": 9, "stream": 7, "device": 0}}
  ])");
  auto t = ImportTrace(f.path());
  ASSERT_TRUE(t.ok()) << t.status().message();
  // No slice ends before it begins.
  for (size_t i = 0; i < t->slices.size(); ++i) {
    EXPECT_GE(t->slices.dur_ns[i], -1) << t->Str(t->slices.name_id[i]);
  }
  // The A -> B -> A cycle and the self-loop are kept as flows between existing slices.
  EXPECT_GE(t->flows.size(), 2u);
  for (size_t i = 0; i < t->flows.size(); ++i) {
    EXPECT_LT(Index(t->flows.out_slice_id[i]), t->slices.size());
    EXPECT_LT(Index(t->flows.in_slice_id[i]), t->slices.size());
  }
  EXPECT_GT(t->stats.Get(ImportStat::flow_duplicate_id) + t->stats.Get(ImportStat::flow_unmatched), 0);
}

TEST(HostileInputTest, InvalidUtf8NamesAreAnErrorAtTheirEvent) {
  TempFile f(
      "[{\"ph\": \"X\", \"name\": \"ok\", \"pid\": 1, \"tid\": 1, \"ts\": 1, \"dur\": 1},\n"
      " {\"ph\": \"X\", \"name\": \"bad\xff\xfe\xc3\", \"pid\": 1, \"tid\": 1, \"ts\": 2, \"dur\": 1}]");
  auto t = ImportTrace(f.path());
  ASSERT_FALSE(t.ok());
  ExpectClearError(t.status(), f.path(), "invalid UTF-8");
  EXPECT_NE(t.status().message().find("event #1"), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("UTF-8"), std::string::npos) << t.status().message();
}

TEST(HostileInputTest, CsvWithNulsAndRaggedRowsKeepsTheGoodRows) {
  const fs::path tmp = TestDir("tmp");
  SmallTorchNpuFolder folder(tmp);
  const std::string kd = folder.files().at("ASCEND_PROFILER_OUTPUT/kernel_details.csv");
  const size_t header_end = kd.find('\n') + 1;
  const size_t row1_end = kd.find('\n', header_end) + 1;
  std::string row = kd.substr(header_end, row1_end - header_end);
  std::string hostile = kd.substr(0, row1_end);
  std::string with_nul = row;
  with_nul[with_nul.find(',') + 1] = '\0';  // a NUL inside the second field
  hostile += with_nul;
  hostile += "50,1,2\n";                                       // too few columns
  hostile += row.substr(0, row.size() - 1) + ",extra,more\n";  // too many
  hostile += std::string("\0\0\0\0", 4) + "\n";                // a line of NULs
  // Start times that are not numbers or do not fit: NaN, inf, 10^30 us, an exponent, empty.
  for (const char* ts : {"NaN", "inf", "1000000000000000000000000000000", "1e400", "", "-"}) {
    std::string bad = row;
    const size_t start = [&] {  // the 9th field: Start Time(us)
      size_t p = 0;
      for (int f = 0; f < 8; ++f) p = bad.find(',', p) + 1;
      return p;
    }();
    bad.replace(start, bad.find(',', start) - start, ts);
    hostile += bad;
  }
  hostile += "\"unterminated,quote\n";  // a quote never closed
  WriteFile(folder.dir() / "ASCEND_PROFILER_OUTPUT/kernel_details.csv", hostile);
  auto t = ImportTrace(folder.dir().string());
  ASSERT_TRUE(t.ok()) << t.status().message();
  // The unterminated quote fails the file: named in import_problems with its line.
  const std::string problems = t->MetadataText("import_problems");
  EXPECT_NE(problems.find("kernel_details.csv"), std::string::npos) << problems;
  EXPECT_NE(problems.find("line "), std::string::npos) << problems;
  EXPECT_GE(t->slices.size(), static_cast<size_t>(SmallTorchNpuFolder::kTraceEvents));

  // Without the unterminated quote the good rows are read and the ragged ones skipped and counted.
  hostile.resize(hostile.rfind("\"unterminated"));
  WriteFile(folder.dir() / "ASCEND_PROFILER_OUTPUT/kernel_details.csv", hostile);
  auto t2 = ImportTrace(folder.dir().string());
  ASSERT_TRUE(t2.ok()) << t2.status().message();
  EXPECT_GE(t2->stats.Get(ImportStat::csv_bad_row), 6);  // at least the six bad start times
  for (size_t i = 0; i < t2->slices.size(); ++i) {
    int64_t end;
    EXPECT_FALSE(
        __builtin_add_overflow(t2->slices.ts_ns[i], std::max<int64_t>(0, t2->slices.dur_ns[i]), &end));
  }
  EXPECT_GE(t2->slices.size(), t->slices.size());
}

// Runs `sql` on a new SQLite file at `path`.
void MakeSqlite(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_close(db);
}

TEST(HostileInputTest, NsysSqliteWithTheWrongSchemaIsAClearErrorOrEmptyRows) {
  const fs::path tmp = TestDir("tmp");
  const std::string schemas[] = {
      // Not nsys at all.
      "CREATE TABLE t(x); INSERT INTO t VALUES (1);",
      // StringIds without its columns, and a kernel table of the wrong shape and types.
      "CREATE TABLE StringIds(foo TEXT); INSERT INTO StringIds VALUES ('x');"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(bar TEXT); INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES "
      "('y');",
      // The right column names with text where numbers belong, NULLs, and end before start.
      "CREATE TABLE StringIds(id INTEGER, value TEXT); INSERT INTO StringIds VALUES (1, 'k'), ('two', NULL);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start, end, deviceId, contextId, streamId, correlationId, "
      "globalPid,"
      " demangledName, shortName, gridX, gridY, gridZ, blockX, blockY, blockZ);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES ('abc', 'def', NULL, 1, 1, 1, 1, 1, 999, 1, 1, 1, 1, 1, "
      "1),"
      " (100, 50, 0, 1, 1, 2, 1, 1, 1, 1, 1, 1, 1, 1, 1), (9223372036854775807, -9223372036854775808, 0, 1, "
      "1, 3, 1,"
      " 1, 1, 1, 1, 1, 1, 1, 1);"
      "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start, end, globalTid, correlationId, nameId);"
      "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (1, 2, 'x', 1, 12345), (5, 1, NULL, NULL, NULL);",
  };
  for (size_t i = 0; i < std::size(schemas); ++i) {
    const std::string path = (tmp / fmt::format("s{}.sqlite", i)).string();
    MakeSqlite(path, schemas[i]);
    auto t = ImportTrace(path);
    if (i < 2) {
      // Not nsys, or nsys names with other columns: an error naming the file (and the table).
      ASSERT_FALSE(t.ok()) << "schema " << i;
      EXPECT_EQ(t.status().code(), StatusCode::kInvalidInput) << t.status().message();
      EXPECT_NE(t.status().message().find(path), std::string::npos) << t.status().message();
      if (i == 1) {
        EXPECT_NE(t.status().message().find("StringIds has no column 'id'"), std::string::npos)
            << t.status().message();
      }
      continue;
    }
    // The right columns with wrong values: rows that make sense are kept; end before start and
    // ends that overflow are dropped and counted.
    ASSERT_TRUE(t.ok()) << t.status().message();
    EXPECT_EQ(t->stats.Get(ImportStat::negative_duration), 2);  // kernel 100 -> 50, runtime 5 -> 1
    EXPECT_EQ(t->stats.Get(ImportStat::timestamp_out_of_range), 1);
    for (size_t r = 0; r < t->slices.size(); ++r) EXPECT_GE(t->slices.dur_ns[r], 0);
  }
}

TEST(HostileInputTest, EmptyFilesAndDirectoriesAreClearErrors) {
  const fs::path tmp = TestDir("tmp");
  for (const char* name : {"empty.json", "empty.json.gz", "empty.pb", "empty.sqlite", "empty"}) {
    const std::string path = (tmp / name).string();
    WriteFile(path, "");
    auto t = ImportTrace(path);
    ASSERT_FALSE(t.ok()) << name;
    EXPECT_NE(t.status().code(), StatusCode::kInternal) << t.status().message();
    EXPECT_NE(t.status().message().find(path), std::string::npos) << t.status().message();
  }
  // An empty gzip stream and a gzip file of whitespace.
  for (const std::string& body : {std::string(), std::string(1000, ' ')}) {
    TempFile f(body, ".json.gz", /*gzip=*/true);
    auto t = ImportTrace(f.path());
    ASSERT_FALSE(t.ok());
    ExpectClearError(t.status(), f.path(), "empty gzip");
  }
  // Gzip'd garbage: the byte named is the decompressed content's, and says so (the file's is 0x1f).
  for (const auto& [body, name, expected] :
       {std::tuple<std::string, const char*, const char*>{"garbage", ".json.gz", "first byte after gunzip 0x67"},
        {"garbage", ".json", "first byte 0x67"}}) {
    TempFile f(body, name, /*gzip=*/std::string_view(name).ends_with(".gz"));
    auto t = ImportTrace(f.path());
    ASSERT_FALSE(t.ok());
    EXPECT_NE(t.status().message().find(expected), std::string::npos) << t.status().message();
  }
  // An empty directory, and torch_npu folders whose files are directories.
  auto d = ImportTrace(tmp.string());
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find(tmp.string()), std::string::npos) << d.status().message();
  {
    const fs::path t2 = TestDir("t2");
    SmallTorchNpuFolder folder(t2);
    fs::remove(folder.dir() / "ASCEND_PROFILER_OUTPUT/trace_view.json");
    fs::create_directory(folder.dir() / "ASCEND_PROFILER_OUTPUT/trace_view.json");
    auto t = ImportTrace(folder.dir().string());
    if (!t.ok()) {
      EXPECT_NE(t.status().message().find("trace_view.json"), std::string::npos) << t.status().message();
    } else {
      EXPECT_NE(t->MetadataText("missing_files").find("trace_view.json"), std::string::npos);
    }
  }
  {
    const fs::path t3 = TestDir("t3");
    SmallTorchNpuFolder folder(t3);
    fs::remove(folder.dir() / "ASCEND_PROFILER_OUTPUT/kernel_details.csv");
    fs::create_directory(folder.dir() / "ASCEND_PROFILER_OUTPUT/kernel_details.csv");
    auto t = ImportTrace(folder.dir().string());
    ASSERT_TRUE(t.ok()) << t.status().message();
    const std::string named = t->MetadataText("import_problems") + t->MetadataText("missing_files");
    EXPECT_NE(named.find("kernel_details.csv"), std::string::npos) << named;
  }
}

// Events with distinct names, so the string pool grows with the trace.
std::string ManyEvents(int n) {
  std::string text = "[";
  for (int i = 0; i < n; ++i) {
    text += fmt::format(
        R"({}{{"ph": "X", "name": "op_{}", "pid": 1, "tid": 1, "ts": {}, "dur": 1, "args": {{"i": {}}}}})",
        i ? "," : "", i, i * 2, i);
  }
  return text + "]";
}

TEST(HostileInputTest, MemoryLimitFailsTheImportNamingFileAndLimit) {
  TempFile f(ManyEvents(200'000));
  ImportOptions options;
  auto unlimited = ImportTrace(f.path(), options);
  ASSERT_TRUE(unlimited.ok()) << unlimited.status().message();
  const uint64_t held = TraceMemoryBytes(*unlimited);
  EXPECT_GT(held, 200'000u * 48);  // at least the slice rows

  options.max_memory_bytes = held / 4;
  for (int threads : {1, 2}) {
    options.threads = threads;
    auto t = ImportTrace(f.path(), options);
    ASSERT_FALSE(t.ok());
    EXPECT_EQ(t.status().code(), StatusCode::kResourceLimit);
    EXPECT_NE(t.status().message().find(f.path()), std::string::npos) << t.status().message();
    EXPECT_NE(t.status().message().find("memory limit of " + FormatByteSize(options.max_memory_bytes) + " ("),
              std::string::npos)
        << t.status().message();
    EXPECT_NE(t.status().message().find("raise it with --max_memory"), std::string::npos) << t.status().message();
  }
  options.max_memory_bytes = held * 2;
  EXPECT_TRUE(ImportTrace(f.path(), options).ok());
}

TEST(HostileInputTest, MemoryLimitAlsoStopsAnEventLargerThanTheLimit) {
  // One 8 MiB name: the splitter must grow its buffer to hold the event, and stops at the limit.
  const std::string doc = R"([{"ph": "X", "pid": 1, "tid": 1, "ts": 1, "dur": 1, "name": ")" +
                          std::string(8u << 20, 'a') + R"("}])";
  TempFile f(doc);
  ImportOptions options;
  options.max_memory_bytes = 2u << 20;
  auto t = ImportTrace(f.path(), options);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kResourceLimit) << t.status().message();
  EXPECT_NE(t.status().message().find(f.path()), std::string::npos) << t.status().message();
  EXPECT_NE(t.status().message().find("event #0"), std::string::npos) << t.status().message();
  options.max_memory_bytes = 64u << 20;
  auto ok = ImportTrace(f.path(), options);
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->Str(ok->slices.name_id[0]).size(), 8u << 20);
}

TEST(HostileInputTest, MemoryLimitAppliesToTorchNpuSideTablesAndNsys) {
  const fs::path tmp = TestDir("tmp");
  SmallTorchNpuFolder folder(tmp);
  ImportOptions options;
  options.max_memory_bytes = 1024;  // less than any trace
  auto t = ImportTrace(folder.dir().string(), options);
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.status().code(), StatusCode::kResourceLimit) << t.status().message();
  const std::string nsys = std::string(CPROF_FIXTURES_DIR) + "/nsys/cloverleaf-cuda.sqlite";
  auto n = ImportTrace(nsys, options);
  ASSERT_FALSE(n.ok());
  EXPECT_EQ(n.status().code(), StatusCode::kResourceLimit) << n.status().message();
  EXPECT_NE(n.status().message().find(nsys), std::string::npos) << n.status().message();
}

TEST(HostileInputTest, DefaultMaxMemoryIsSet) { EXPECT_GT(DefaultMaxMemoryBytes(), 0u); }

TEST(HostileInputTest, RealGzipFixturesAreWellUnderTheRatioLimit) {
  // The default ratio limit must never reject a genuine trace: the fixtures' ratios for scale.
  const std::string gz = std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/nccl_parser_config/nccl_data.json.gz";
  auto t = ImportTrace(gz);
  ASSERT_TRUE(t.ok()) << t.status().message();
  auto text = ReadWholeFile(gz);
  ASSERT_TRUE(text.ok());
  const double ratio = static_cast<double>(text->size()) / static_cast<double>(fs::file_size(gz));
  EXPECT_LT(ratio * 10, static_cast<double>(DecompressionLimits{}.max_ratio)) << ratio;
}

// A pipe cannot be read twice (detection, then import): it is named as what it is, not "empty
// file". A damaged SQLite file gives SQLite's reason, not "neither an Nsight nor a torch_npu export".
TEST(HostileInputTest, PipesAndDamagedDatabasesSayWhatTheyAre) {
  const fs::path tmp = TestDir("tmp");
  const std::string fifo = (tmp / "trace.json").string();
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  auto piped = ImportTrace(fifo);
  ASSERT_FALSE(piped.ok());
  EXPECT_NE(piped.status().message().find("not a regular file"), std::string::npos) << piped.status().message();

  std::string head;
  {
    std::FILE* f = std::fopen((std::string(CPROF_FIXTURES_DIR) + "/nsys/cloverleaf-cuda.sqlite").c_str(), "rb");
    ASSERT_NE(f, nullptr);
    head.resize(1000000);
    head.resize(std::fread(head.data(), 1, head.size(), f));
    std::fclose(f);
  }
  const std::string cut = (tmp / "cut.sqlite").string();
  {
    std::FILE* f = std::fopen(cut.c_str(), "wb");
    std::fwrite(head.data(), 1, head.size(), f);
    std::fclose(f);
  }
  auto damaged = ImportTrace(cut);
  ASSERT_FALSE(damaged.ok());
  EXPECT_NE(damaged.status().message().find("cut.sqlite"), std::string::npos) << damaged.status().message();
  EXPECT_NE(damaged.status().message().find("malformed"), std::string::npos) << damaged.status().message();
}

}  // namespace
}  // namespace cprof
