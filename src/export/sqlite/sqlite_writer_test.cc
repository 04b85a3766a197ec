// FillSqlite / WriteSqlite on a trace with every table filled: rows, columns, documentation, NULLs, args, atomic write.
#include "export/sqlite/sqlite_writer.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "export/testing/every_table_trace.h"

namespace cprof {
namespace {

class SqliteWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    trace_ = testing::MakeEveryTableTrace();
    ASSERT_EQ(sqlite3_open(":memory:", &db_), SQLITE_OK);
    Status s = FillSqlite(trace_, db_);
    ASSERT_TRUE(s.ok()) << s.message();
  }
  void TearDown() override { sqlite3_close(db_); }

  // The first column of the first row of `sql`, as text ("NULL" for null).
  std::string One(const std::string& sql) {
    sqlite3_stmt* st = nullptr;
    EXPECT_EQ(sqlite3_prepare_v2(db_, sql.c_str(), -1, &st, nullptr), SQLITE_OK) << sqlite3_errmsg(db_) << ": " << sql;
    std::string out = "<no row>";
    if (st && sqlite3_step(st) == SQLITE_ROW) {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      out = text ? text : "NULL";
    }
    sqlite3_finalize(st);
    return out;
  }
  int64_t Count(const std::string& table) { return std::stoll(One("SELECT COUNT(*) FROM " + table)); }

  Trace trace_;
  sqlite3* db_ = nullptr;
};

TEST_F(SqliteWriterTest, EveryTableHasEveryRow) {
  EXPECT_EQ(Count("track"), static_cast<int64_t>(trace_.tracks.size()));
  EXPECT_EQ(Count("slice"), static_cast<int64_t>(trace_.slices.size()));
  EXPECT_EQ(Count("flow"), static_cast<int64_t>(trace_.flows.size()));
  EXPECT_EQ(Count("counter"), static_cast<int64_t>(trace_.counters.size()));
  EXPECT_EQ(Count("memory_event"), static_cast<int64_t>(trace_.memory_events.size()));
  EXPECT_EQ(Count("sample"), static_cast<int64_t>(trace_.samples.size()));
  EXPECT_EQ(Count("stack"), static_cast<int64_t>(trace_.stacks.size()));
  EXPECT_EQ(Count("frame"), static_cast<int64_t>(trace_.frames.size()));
  EXPECT_EQ(Count("arg"), static_cast<int64_t>(trace_.args.size()));
  EXPECT_EQ(Count("metadata"), static_cast<int64_t>(trace_.metadata.size()));
  EXPECT_GT(Count("slice"), 10);
}

TEST_F(SqliteWriterTest, EveryModelColumnIsAColumnAndDocumented) {
  // One SQL column per model column, plus `id` where rows are referred to.
  auto columns = [&](const std::string& table) { return std::stoll(One("SELECT COUNT(*) FROM pragma_table_info('" + table + "')")); };
  EXPECT_EQ(columns("track"), static_cast<int64_t>(std::size(TrackTable::kColumns)) + 1);
  EXPECT_EQ(columns("slice"), static_cast<int64_t>(std::size(SliceTable::kColumns)) + 1);
  EXPECT_EQ(columns("flow"), static_cast<int64_t>(std::size(FlowTable::kColumns)));
  EXPECT_EQ(columns("memory_event"), static_cast<int64_t>(std::size(MemoryEventTable::kColumns)));
  EXPECT_EQ(columns("frame"), static_cast<int64_t>(std::size(FrameTable::kColumns)) + 1);
  // Every column of every table has its documentation line.
  EXPECT_EQ(One("SELECT COUNT(*) FROM pragma_table_list t, pragma_table_info(t.name) c "
                "WHERE t.name NOT LIKE 'sqlite_%' AND t.name != 'cprof_schema' AND NOT EXISTS "
                "(SELECT 1 FROM cprof_schema d WHERE d.table_name = t.name AND d.column_name = c.name)"),
            "0");
  EXPECT_EQ(One("SELECT doc FROM cprof_schema WHERE table_name = 'slice' AND column_name = 'dur_ns'"),
            "duration, ns; -1 if the slice never ended");
  EXPECT_TRUE(IsCprofSqlite(db_));
}

TEST_F(SqliteWriterTest, StringsIdsAndEnumsReadAsAPersonWouldAsk) {
  // Strings as text under the name without _id; a step's kernels through the flow table.
  EXPECT_EQ(One("SELECT COUNT(*) FROM slice WHERE name = 'aten::mm'"), "2");
  EXPECT_EQ(One("SELECT k.name FROM flow f JOIN slice l ON l.id = f.out_slice_id JOIN slice k ON k.id = f.in_slice_id "
                "WHERE f.kind = 'launch'"),
            "gemm_kernel");
  EXPECT_EQ(One("SELECT t.name FROM slice s JOIN track t ON t.id = s.track_id WHERE s.name = 'aten::mm' LIMIT 1"),
            "python main");
  // No parent: NULL, not UINT32_MAX; a top-level slice has depth 0.
  EXPECT_EQ(One("SELECT parent_id FROM slice WHERE name = 'ProfilerStep#1'"), "NULL");
  EXPECT_EQ(One("SELECT p.name FROM slice s JOIN slice p ON p.id = s.parent_id WHERE s.name = 'cudaLaunchKernel'"),
            "ProfilerStep#1");
  EXPECT_EQ(One("SELECT kind FROM track WHERE name = 'cpu 3'"), std::string(TrackKindName(TrackKind::kCpuCore)));
  EXPECT_EQ(One("SELECT dur_ns FROM slice WHERE name = 'never ended'"), "-1");
  // A sample's innermost frame and its caller.
  EXPECT_EQ(One("SELECT f.function || '<' || pf.function FROM sample s JOIN stack st ON st.id = s.stack_id "
                "JOIN frame f ON f.id = st.frame_id JOIN stack ps ON ps.id = st.parent_id JOIN frame pf ON pf.id = ps.frame_id"),
            "forward<main");
  // No correlation (-1 in the model) is NULL, so that a join on it pairs only correlated slices;
  // another negative id is kept.
  int64_t uncorrelated = 0;
  for (size_t i = 0; i < trace_.slices.size(); ++i) uncorrelated += trace_.slices.correlation_id[i] == kNoCorrelation;
  EXPECT_GT(uncorrelated, 10);
  EXPECT_EQ(One("SELECT COUNT(*) FROM slice WHERE correlation_id IS NULL"), std::to_string(uncorrelated));
  EXPECT_EQ(One("SELECT correlation_id FROM slice WHERE name = 'aten::mm' AND correlation_id IS NOT NULL"), "-5");
  EXPECT_EQ(One("SELECT a.name || '>' || b.name FROM slice a JOIN slice b ON a.correlation_id = b.correlation_id "
                "AND a.id < b.id"),
            "cudaLaunchKernel>gemm_kernel");
  EXPECT_EQ(One("SELECT COUNT(*) FROM slice a JOIN slice b ON a.correlation_id = b.correlation_id AND a.id < b.id"),
            "1");
  EXPECT_EQ(One("SELECT doc FROM cprof_schema WHERE table_name = 'slice' AND column_name = 'correlation_id'"),
            "launch <-> kernel correlation, or NULL");
  // A NaN counter value is NULL; the others keep their value.
  EXPECT_EQ(One("SELECT COUNT(*) FROM counter WHERE value IS NULL"), "1");
}

TEST_F(SqliteWriterTest, ArgsKeepTheirTypes) {
  for (uint32_t r = 0; r < trace_.args.size(); ++r) {
    const Value& v = trace_.args.value[r];
    std::string key(trace_.Str(trace_.args.key_id[r]));
    std::string type = One("SELECT typeof(value) FROM arg WHERE key = '" + key + "' LIMIT 1");
    switch (v.type) {
      case Value::Type::kInt:
      case Value::Type::kBool: EXPECT_EQ(type, "integer") << key; break;
      case Value::Type::kDouble: EXPECT_TRUE(type == "real" || type == "null") << key; break;  // NaN is null
      case Value::Type::kString: EXPECT_EQ(type, "text") << key; break;
      case Value::Type::kUint: EXPECT_TRUE(type == "integer" || type == "real") << key; break;
      case Value::Type::kNull: EXPECT_EQ(type, "null") << key; break;
    }
  }
}

TEST(SqliteWriteTest, WritesAtomicallyAndNamesABadPath) {
  Trace trace = testing::MakeEveryTableTrace();
  std::string path = (std::filesystem::temp_directory_path() / ("cprof_sqlite_" + std::to_string(::getpid()) + ".sqlite")).string();
  ASSERT_TRUE(WriteSqlite(trace, path).ok());
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr), SQLITE_OK);
  EXPECT_TRUE(IsCprofSqlite(db));
  sqlite3_close(db);
  EXPECT_FALSE(std::filesystem::exists(path + ".tmp-" + std::to_string(::getpid())));
  std::filesystem::remove(path);
  Status bad = WriteSqlite(trace, "/nonexistent/dir/run.sqlite");
  EXPECT_FALSE(bad.ok());
  EXPECT_NE(bad.message().find("/nonexistent/dir"), std::string::npos) << bad.message();
}

}  // namespace
}  // namespace cprof
