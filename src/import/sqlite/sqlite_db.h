// A read-only SQLite database for the importers that read profiler exports (Nsight Systems,
// the torch_npu .db export): schema probing, so one reader handles several schema versions, and
// statements whose missing columns read as NULL.
//
//   ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::Open("report.sqlite"));
//   if (db.HasTable("CUPTI_ACTIVITY_KIND_KERNEL")) {
//     ASSIGN_OR_RETURN(SqliteStatement st, db.SelectColumns("CUPTI_ACTIVITY_KIND_KERNEL",
//                                                           {"start", "end", "greenContextId"}));
//     while (true) { ASSIGN_OR_RETURN(bool row, st.Step()); if (!row) break; st.Int(0); }
//   }
//
// Not thread-safe; one database per thread. Errors name the file.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

struct sqlite3;
struct sqlite3_stmt;

namespace cprof {

// True if the file starts with the SQLite magic "SQLite format 3\0".
bool IsSqliteFile(const std::string& path);

class SqliteStatement {
 public:
  SqliteStatement(SqliteStatement&&) noexcept;
  SqliteStatement& operator=(SqliteStatement&&) noexcept;
  ~SqliteStatement();

  // Advances to the next row; false when done.
  StatusOr<bool> Step();
  bool IsNull(int col) const;
  bool IsNumeric(int col) const;  // stored as INTEGER or REAL (Int() reads text such as "abc" as 0)
  int64_t Int(int col) const;
  std::optional<int64_t> OptInt(int col) const;
  double Double(int col) const;
  std::optional<double> OptDouble(int col) const;
  // Valid until the next Step().
  std::string_view Text(int col) const;
  int column_count() const;
  std::string_view column_name(int col) const;

 private:
  friend class SqliteDb;
  SqliteStatement(sqlite3_stmt* st, std::string path) : st_(st), path_(std::move(path)) {}
  sqlite3_stmt* st_ = nullptr;
  std::string path_;
};

class SqliteDb {
 public:
  // Opens read-only and immutable (no journal, no locks: exports are never written while read).
  static StatusOr<SqliteDb> Open(const std::string& path);
  SqliteDb(SqliteDb&&) noexcept;
  SqliteDb& operator=(SqliteDb&&) noexcept;
  ~SqliteDb();

  bool HasTable(std::string_view table) const;
  // Column names of `table` (empty if there is no such table).
  const std::vector<std::string>& Columns(std::string_view table) const;
  bool HasColumn(std::string_view table, std::string_view column) const;
  const std::vector<std::string>& Tables() const;

  StatusOr<SqliteStatement> Prepare(std::string_view sql) const;
  // SELECT of the given columns of `table` in that order; a column the table lacks reads as NULL,
  // so callers index results by position whatever the schema version. `suffix` is appended
  // (e.g. "ORDER BY start").
  StatusOr<SqliteStatement> SelectColumns(std::string_view table, std::initializer_list<std::string_view> columns,
                                          std::string_view suffix = {}) const;
  const std::string& path() const { return path_; }

 private:
  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  sqlite3* db_ = nullptr;
  std::string path_;
  mutable std::map<std::string, std::vector<std::string>, std::less<>> columns_;
  mutable std::optional<std::vector<std::string>> tables_;
};

}  // namespace cprof
