// SQLite access for importers: open read-only, probe the schema, step rows.
#include "import/sqlite/sqlite_db.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace cprof {

bool IsSqliteFile(const std::string& path) {
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char head[16];
  size_t n = std::fread(head, 1, sizeof(head), f);
  std::fclose(f);
  return n == 16 && std::memcmp(head, "SQLite format 3\0", 16) == 0;
}

SqliteStatement::SqliteStatement(SqliteStatement&& o) noexcept : st_(o.st_), path_(std::move(o.path_)) {
  o.st_ = nullptr;
}
SqliteStatement& SqliteStatement::operator=(SqliteStatement&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(st_);
    st_ = o.st_;
    path_ = std::move(o.path_);
    o.st_ = nullptr;
  }
  return *this;
}
SqliteStatement::~SqliteStatement() { sqlite3_finalize(st_); }

StatusOr<bool> SqliteStatement::Step() {
  int rc = sqlite3_step(st_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  return InvalidInput("{}: SQLite error while reading: {}", path_, sqlite3_errmsg(sqlite3_db_handle(st_)));
}
bool SqliteStatement::IsNull(int col) const { return sqlite3_column_type(st_, col) == SQLITE_NULL; }
bool SqliteStatement::IsNumeric(int col) const {
  const int type = sqlite3_column_type(st_, col);
  return type == SQLITE_INTEGER || type == SQLITE_FLOAT;
}
int64_t SqliteStatement::Int(int col) const { return sqlite3_column_int64(st_, col); }
std::optional<int64_t> SqliteStatement::OptInt(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Int(col);
}
double SqliteStatement::Double(int col) const { return sqlite3_column_double(st_, col); }
std::optional<double> SqliteStatement::OptDouble(int col) const {
  if (IsNull(col)) return std::nullopt;
  return Double(col);
}
std::string_view SqliteStatement::Text(int col) const {
  const unsigned char* p = sqlite3_column_text(st_, col);
  if (!p) return {};
  return {reinterpret_cast<const char*>(p), static_cast<size_t>(sqlite3_column_bytes(st_, col))};
}
int SqliteStatement::column_count() const { return sqlite3_column_count(st_); }
std::string_view SqliteStatement::column_name(int col) const {
  const char* n = sqlite3_column_name(st_, col);
  return n ? std::string_view(n) : std::string_view();
}

StatusOr<SqliteDb> SqliteDb::Open(const std::string& path) {
  if (!IsSqliteFile(path)) return InvalidInput("{}: not an SQLite database (no 'SQLite format 3' header)", path);
  sqlite3* db = nullptr;
  std::string uri = "file:" + path + "?immutable=1";
  int rc = sqlite3_open_v2(uri.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return InvalidInput("{}: cannot open SQLite database: {}", path, msg);
  }
  SqliteDb out(db, path);
  // Touch the schema now so a corrupt file fails here, with its name.
  auto st = out.Prepare("SELECT name FROM sqlite_master WHERE type = 'table'");
  if (!st.ok()) return st.status();
  return out;
}

SqliteDb::SqliteDb(SqliteDb&& o) noexcept
    : db_(o.db_), path_(std::move(o.path_)), columns_(std::move(o.columns_)), tables_(std::move(o.tables_)) {
  o.db_ = nullptr;
}
SqliteDb& SqliteDb::operator=(SqliteDb&& o) noexcept {
  if (this != &o) {
    sqlite3_close(db_);
    db_ = o.db_;
    path_ = std::move(o.path_);
    columns_ = std::move(o.columns_);
    tables_ = std::move(o.tables_);
    o.db_ = nullptr;
  }
  return *this;
}
SqliteDb::~SqliteDb() { sqlite3_close(db_); }

StatusOr<SqliteStatement> SqliteDb::Prepare(std::string_view sql) const {
  sqlite3_stmt* st = nullptr;
  int rc = sqlite3_prepare_v2(db_, sql.data(), static_cast<int>(sql.size()), &st, nullptr);
  if (rc != SQLITE_OK) {
    return InvalidInput("{}: SQLite cannot run '{}': {}", path_, sql.substr(0, 80), sqlite3_errmsg(db_));
  }
  return SqliteStatement(st, path_);
}

const std::vector<std::string>& SqliteDb::Tables() const {
  if (!tables_) {
    tables_.emplace();
    auto st = Prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
    if (st.ok()) {
      while (true) {
        auto row = st->Step();
        if (!row.ok() || !*row) break;
        tables_->emplace_back(st->Text(0));
      }
    }
  }
  return *tables_;
}

bool SqliteDb::HasTable(std::string_view table) const {
  const auto& t = Tables();
  return std::find(t.begin(), t.end(), table) != t.end();
}

const std::vector<std::string>& SqliteDb::Columns(std::string_view table) const {
  auto it = columns_.find(table);
  if (it != columns_.end()) return it->second;
  std::vector<std::string> cols;
  if (HasTable(table)) {
    auto st = Prepare(fmt::format("PRAGMA table_info(\"{}\")", table));
    if (st.ok()) {
      while (true) {
        auto row = st->Step();
        if (!row.ok() || !*row) break;
        cols.emplace_back(st->Text(1));
      }
    }
  }
  return columns_.emplace(std::string(table), std::move(cols)).first->second;
}

bool SqliteDb::HasColumn(std::string_view table, std::string_view column) const {
  const auto& cols = Columns(table);
  return std::find(cols.begin(), cols.end(), column) != cols.end();
}

StatusOr<SqliteStatement> SqliteDb::SelectColumns(std::string_view table,
                                                  std::initializer_list<std::string_view> columns,
                                                  std::string_view suffix) const {
  std::string sql = "SELECT ";
  bool first = true;
  for (std::string_view c : columns) {
    if (!first) sql += ", ";
    first = false;
    sql += HasColumn(table, c) ? fmt::format("\"{}\"", c) : std::string("NULL");
  }
  sql += fmt::format(" FROM \"{}\"", table);
  if (!suffix.empty()) sql += fmt::format(" {}", suffix);
  return Prepare(sql);
}

}  // namespace cprof
