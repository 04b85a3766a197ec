// The tables are generated from the X-macro column lists of model/tables.h: a column's SQL name
// and type come from its C++ type (ColumnSql<T>), and each row is bound value by value (Bind), so a
// column added to the model appears here without an edit.
#include "export/sqlite/sqlite_writer.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <span>
#include <memory>
#include <string_view>
#include <type_traits>
#include <vector>

#include <fmt/format.h>

#include "base/atomic_file.h"

namespace cprof {
namespace {

std::string_view FlowKindName(FlowKind k) {
  switch (k) {
    case FlowKind::kLaunch: return "launch";
    case FlowKind::kFwdBwd: return "fwd_bwd";
    case FlowKind::kQueue: return "queue";
    case FlowKind::kHostToDevice: return "host_to_device";
    case FlowKind::kOther: return "other";
  }
  return "other";
}

template <typename T>
constexpr bool kIsId = std::is_same_v<T, TrackId> || std::is_same_v<T, SliceId> || std::is_same_v<T, StackId> ||
                       std::is_same_v<T, FrameId> || std::is_same_v<T, ArgSetId>;

// The SQL name and type of a model column: strings lose their `_id` suffix.
template <typename T>
std::string ColumnSql(std::string_view name) {
  if constexpr (std::is_same_v<T, StringId>) {
    if (name.ends_with("_id")) name.remove_suffix(3);
    return fmt::format("{} TEXT", name);
  } else if constexpr (std::is_same_v<T, TrackKind> || std::is_same_v<T, FlowKind>) {
    return fmt::format("{} TEXT", name);
  } else if constexpr (std::is_same_v<T, double>) {
    return fmt::format("{} REAL", name);
  } else if constexpr (std::is_same_v<T, Value>) {
    return std::string(name);  // any type: integer, real, text
  } else {
    return fmt::format("{} INTEGER", name);
  }
}

// Text, never NULL: an empty string_view may have no data pointer, which SQLite binds as NULL.
void BindText(sqlite3_stmt* st, int c, std::string_view text) {
  sqlite3_bind_text(st, c, text.empty() ? "" : text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
}

template <typename T>
constexpr bool IsNoCorrelation(std::string_view column, const T& v) {
  if constexpr (std::is_same_v<T, int64_t>) return v == kNoCorrelation && column == "correlation_id";
  return false;
}

// The documentation of a column as SQL shows it.
std::string_view SqlDoc(std::string_view column, std::string_view doc) {
  return column == "correlation_id" ? "launch <-> kernel correlation, or NULL" : doc;
}

struct Stmt {
  sqlite3_stmt* st = nullptr;
  ~Stmt() { sqlite3_finalize(st); }
};

class Writer {
 public:
  Writer(const Trace& t, sqlite3* db) : t_(t), db_(db) {}

  Status Exec(const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &err) == SQLITE_OK) return Status::Ok();
    std::string msg = err ? err : sqlite3_errmsg(db_);
    sqlite3_free(err);
    return Internal("sqlite: {} (in: {})", msg, sql.substr(0, 80));
  }

  Status Prepare(const std::string& sql, Stmt* stmt) {
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt->st, nullptr) == SQLITE_OK) return Status::Ok();
    return Internal("sqlite: {} (in: {})", sqlite3_errmsg(db_), sql.substr(0, 80));
  }

  // CREATE TABLE name (id?, columns...) and a prepared INSERT with one parameter per column.
  Status Begin(std::string_view table, bool with_id, const std::vector<std::string>& columns, Stmt* insert) {
    std::string cols = with_id ? "id INTEGER PRIMARY KEY" : "";
    std::string params = with_id ? "?" : "";
    for (const std::string& c : columns) {
      cols += fmt::format("{}{}", cols.empty() ? "" : ", ", c);
      params += params.empty() ? "?" : ", ?";
    }
    RETURN_IF_ERROR(Exec(fmt::format("CREATE TABLE {} ({})", table, cols)));
    return Prepare(fmt::format("INSERT INTO {} VALUES ({})", table, params), insert);
  }

  Status Step(Stmt& insert) {
    if (sqlite3_step(insert.st) != SQLITE_DONE) return Internal("sqlite: {}", sqlite3_errmsg(db_));
    sqlite3_reset(insert.st);
    col_ = 0;
    return Status::Ok();
  }

  void BindNull(Stmt& s) { sqlite3_bind_null(s.st, ++col_); }

  void BindRowId(Stmt& s, size_t row) { sqlite3_bind_int64(s.st, ++col_, static_cast<int64_t>(row)); }

  template <typename T>
  void Bind(Stmt& s, const T& v) {
    sqlite3_stmt* st = s.st;
    int c = ++col_;
    if constexpr (std::is_same_v<T, StringId>) {
      BindText(st, c, t_.Str(v));
    } else if constexpr (kIsId<T>) {
      if (Index(v) == UINT32_MAX) {
        sqlite3_bind_null(st, c);
      } else {
        sqlite3_bind_int64(st, c, Index(v));
      }
    } else if constexpr (std::is_same_v<T, TrackKind>) {
      BindText(st, c, TrackKindName(v));
    } else if constexpr (std::is_same_v<T, FlowKind>) {
      BindText(st, c, FlowKindName(v));
    } else if constexpr (std::is_same_v<T, Value>) {
      switch (v.type) {
        case Value::Type::kNull: sqlite3_bind_null(st, c); break;
        case Value::Type::kInt: sqlite3_bind_int64(st, c, v.i); break;
        case Value::Type::kUint:  // above INT64_MAX only as a real
          if (v.u <= static_cast<uint64_t>(INT64_MAX)) {
            sqlite3_bind_int64(st, c, static_cast<int64_t>(v.u));
          } else {
            sqlite3_bind_double(st, c, static_cast<double>(v.u));
          }
          break;
        case Value::Type::kDouble: sqlite3_bind_double(st, c, v.d); break;
        case Value::Type::kBool: sqlite3_bind_int64(st, c, v.b ? 1 : 0); break;
        case Value::Type::kString: BindText(st, c, t_.Str(v.s)); break;
      }
    } else if constexpr (std::is_same_v<T, double>) {
      sqlite3_bind_double(st, c, v);
    } else if constexpr (std::is_same_v<T, uint64_t>) {  // addresses: the same 64 bits, signed
      sqlite3_bind_int64(st, c, static_cast<int64_t>(v));
    } else {
      sqlite3_bind_int64(st, c, static_cast<int64_t>(v));
    }
  }

  // One documentation row in cprof_schema.
  Status Document(Stmt& doc, std::string_view table, std::string_view column, std::string_view text) {
    // The views outlive the step that reads them.
    BindText(doc.st, 1, table);
    BindText(doc.st, 2, column);
    BindText(doc.st, 3, text);
    return Step(doc);
  }

  // The documentation of a model table's columns, under their SQL names.
  Status DocumentColumns(Stmt& doc, std::string_view table, bool with_id, const std::vector<std::string>& sql_columns,
                         std::span<const ColumnInfo> info) {
    if (with_id) RETURN_IF_ERROR(Document(doc, table, "id", "the row's id in the trace, which *_id columns refer to"));
    for (size_t i = 0; i < info.size(); ++i) {
      std::string_view sql = sql_columns[i];
      std::string_view column = sql.substr(0, sql.find(' '));
      RETURN_IF_ERROR(Document(doc, table, column, SqlDoc(column, info[i].doc)));
    }
    return Status::Ok();
  }

 private:
  const Trace& t_;
  sqlite3* db_;
  int col_ = 0;
};

#define CPROF_SQL_COLUMN(type, name, def, doc) columns.push_back(ColumnSql<type>(#name));
// correlation_id is an id kept as int64 with -1 for none: NULL in SQL, so that a join of launches
// to kernels on it does not pair every uncorrelated slice with every other.
#define CPROF_SQL_BIND(type, name, def, doc)                                   \
  if (IsNoCorrelation(#name, table.name[i])) {                                 \
    w.BindNull(insert);                                                        \
  } else {                                                                     \
    w.Bind(insert, table.name[i]);                                             \
  }

// Creates, documents and fills one model table; `with_id` adds the row's id as the primary key.
#define CPROF_SQL_TABLE(sql_name, TableType, COLUMNS, source, with_id)                           \
  do {                                                                                           \
    const TableType& table = (source);                                                           \
    std::vector<std::string> columns;                                                            \
    COLUMNS(CPROF_SQL_COLUMN)                                                                    \
    Stmt insert;                                                                                 \
    RETURN_IF_ERROR(w.Begin(sql_name, with_id, columns, &insert));                              \
    RETURN_IF_ERROR(w.DocumentColumns(doc, sql_name, with_id, columns, TableType::kColumns));   \
    for (size_t i = 0; i < table.size(); ++i) {                                                  \
      if (with_id) w.BindRowId(insert, i);                                                       \
      COLUMNS(CPROF_SQL_BIND)                                                                    \
      RETURN_IF_ERROR(w.Step(insert));                                                           \
    }                                                                                            \
  } while (0)

Status Fill(const Trace& t, Writer& w) {
  RETURN_IF_ERROR(w.Exec("CREATE TABLE cprof_schema (table_name TEXT, column_name TEXT, doc TEXT)"));
  Stmt doc;
  RETURN_IF_ERROR(w.Prepare("INSERT INTO cprof_schema VALUES (?, ?, ?)", &doc));
  CPROF_SQL_TABLE("track", TrackTable, CPROF_TRACK_COLUMNS, t.tracks, true);
  CPROF_SQL_TABLE("slice", SliceTable, CPROF_SLICE_COLUMNS, t.slices, true);
  CPROF_SQL_TABLE("flow", FlowTable, CPROF_FLOW_COLUMNS, t.flows, false);
  CPROF_SQL_TABLE("counter", CounterTable, CPROF_COUNTER_COLUMNS, t.counters, false);
  CPROF_SQL_TABLE("memory_event", MemoryEventTable, CPROF_MEMORY_EVENT_COLUMNS, t.memory_events, false);
  CPROF_SQL_TABLE("sample", SampleTable, CPROF_SAMPLE_COLUMNS, t.samples, false);
  CPROF_SQL_TABLE("stack", StackTable, CPROF_STACK_COLUMNS, t.stacks, true);
  CPROF_SQL_TABLE("frame", FrameTable, CPROF_FRAME_COLUMNS, t.frames, true);
  CPROF_SQL_TABLE("metadata", MetadataTable, CPROF_METADATA_COLUMNS, t.metadata, false);

  Stmt arg;
  RETURN_IF_ERROR(w.Begin("arg", false, {"arg_set_id INTEGER", "key TEXT", "value"}, &arg));
  RETURN_IF_ERROR(w.Document(doc, "arg", "arg_set_id", "the set the arg belongs to (slice.arg_set_id)"));
  RETURN_IF_ERROR(w.Document(doc, "arg", "key", "arg name"));
  RETURN_IF_ERROR(w.Document(doc, "arg", "value", "arg value: integer, real or text"));
  for (uint32_t set = 0; set < t.args.set_count(); ++set) {
    ArgSetId id{set};
    for (uint32_t r = t.args.begin(id); r < t.args.end(id); ++r) {
      w.Bind(arg, id);
      w.Bind(arg, t.args.key_id[r]);
      w.Bind(arg, t.args.value[r]);
      RETURN_IF_ERROR(w.Step(arg));
    }
  }

  Stmt stat;
  RETURN_IF_ERROR(w.Begin("import_stat", false, {"name TEXT", "severity TEXT", "count INTEGER", "description TEXT"}, &stat));
  RETURN_IF_ERROR(w.Document(doc, "import_stat", "name", "what happened during the import (only non-zero counts)"));
  RETURN_IF_ERROR(w.Document(doc, "import_stat", "severity", "info, data_loss or error"));
  RETURN_IF_ERROR(w.Document(doc, "import_stat", "count", "how many times"));
  RETURN_IF_ERROR(w.Document(doc, "import_stat", "description", "what the stat means"));
  for (size_t i = 0; i < ImportStats::kCount; ++i) {
    auto s = static_cast<ImportStat>(i);
    if (t.stats.Get(s) == 0) continue;
    const ImportStatInfo& info = GetImportStatInfo(s);
    std::string_view severity = SeverityName(info.severity);
    BindText(stat.st, 1, info.name);
    BindText(stat.st, 2, severity);
    sqlite3_bind_int64(stat.st, 3, t.stats.Get(s));
    BindText(stat.st, 4, info.description);
    RETURN_IF_ERROR(w.Step(stat));
  }
  RETURN_IF_ERROR(w.Exec("CREATE INDEX slice_track_ts ON slice(track_id, ts_ns); CREATE INDEX slice_name ON slice(name)"));
  return Status::Ok();
}

}  // namespace

Status FillSqlite(const Trace& trace, sqlite3* db) {
  Writer w(trace, db);
  RETURN_IF_ERROR(w.Exec("BEGIN"));
  Status s = Fill(trace, w);
  if (!s.ok()) {
    (void)w.Exec("ROLLBACK");
    return s;
  }
  return w.Exec("COMMIT");
}

Status WriteSqlite(const Trace& trace, const std::string& path) {
  RETURN_IF_ERROR(CheckCanCreate(path));
  const std::string target = ResolveOutputPath(path);  // a link is written through, not replaced
  if (std::error_code ec; std::filesystem::exists(target, ec) && !std::filesystem::is_regular_file(target, ec))
    return InvalidInput("{}: a database needs a regular file, not a device or pipe", path);
  const std::string tmp = fmt::format("{}.tmp-{}", target, ::getpid());
  std::remove(tmp.c_str());
  sqlite3* db = nullptr;
  if (sqlite3_open_v2(tmp.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                      nullptr) != SQLITE_OK) {
    std::string msg = db ? sqlite3_errmsg(db) : "out of memory";
    sqlite3_close(db);
    return InvalidInput("{}: cannot create the database: {}", path, msg);
  }
  // One writer, no readers until the rename: no journal, no fsync per commit.
  Status s = Writer(trace, db).Exec("PRAGMA journal_mode = OFF; PRAGMA synchronous = OFF");
  if (s.ok()) s = FillSqlite(trace, db).WithContext(path);  // "run.sqlite: sqlite: database or disk is full"
  if (sqlite3_close(db) != SQLITE_OK && s.ok()) s = Internal("{}: closing the database failed", tmp);
  if (s.ok() && std::rename(tmp.c_str(), target.c_str()) != 0) {
    s = InvalidInput("{}: cannot rename the finished database over it: {}", path, std::strerror(errno));
  }
  if (!s.ok()) std::remove(tmp.c_str());
  return s;
}

bool IsCprofSqlite(sqlite3* db) {
  Stmt q;
  if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'cprof_schema'", -1, &q.st,
                         nullptr) != SQLITE_OK) {
    return false;
  }
  return sqlite3_step(q.st) == SQLITE_ROW;
}

}  // namespace cprof
