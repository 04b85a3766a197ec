// `cann-profiler query TRACE "SQL" [--format text|csv|json] [-o FILE]`: one SQL statement over a
// trace's tables (the schema of export/sqlite/sqlite_writer.h; `SELECT * FROM cprof_schema` lists
// it) and its rows, like Perfetto's trace processor shell or `nsys stats` reports, for the
// questions the other commands do not ask. TRACE is any trace the other commands read, loaded
// into an in-memory database, or a database `convert` wrote, opened read-only as it is.
#include <sqlite3.h>

#include <memory>

#include <fmt/format.h>

#include "base/short_name.h"
#include "cli/commands.h"
#include "cli/json_values.h"
#include "export/sqlite/sqlite_writer.h"
#include "import/sqlite/sqlite_db.h"
#include "model/trace.h"

namespace cprof::cli {
namespace {

struct QueryOptions {
  std::string trace;
  std::string sql;
  OutputOptions output;
};

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close(db); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;

struct StmtCloser {
  void operator()(sqlite3_stmt* s) const { sqlite3_finalize(s); }
};

// The database to query: a `convert` output as it is, or the trace loaded into memory.
StatusOr<Db> OpenDatabase(const std::string& path, CommandContext& ctx) {
  if (IsSqliteFile(path)) {
    sqlite3* raw = nullptr;
    int rc = sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    Db db(raw);
    if (rc == SQLITE_OK && IsCprofSqlite(db.get())) return db;
  }
  ASSIGN_OR_RETURN(Trace trace, LoadTrace(path, ctx.import));
  sqlite3* raw = nullptr;
  // One thread uses the connection (NOMUTEX), and nothing needs a rollback journal: the
  // per-call mutexes and the journal took a third of the time of loading 1M slices.
  if (sqlite3_open_v2(":memory:", &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nullptr) !=
      SQLITE_OK) {
    sqlite3_close(raw);
    return Internal("cannot open an in-memory SQLite database");
  }
  Db db(raw);
  if (sqlite3_exec(db.get(), "PRAGMA journal_mode = OFF", nullptr, nullptr, nullptr) != SQLITE_OK) {
    return Internal("in-memory SQLite database: {}", sqlite3_errmsg(db.get()));
  }
  RETURN_IF_ERROR(FillSqlite(trace, db.get()));
  return db;
}

// A text or blob cell's bytes.
std::string ColumnText(sqlite3_stmt* st, int c) {
  const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
  return std::string(text ? text : "", static_cast<size_t>(sqlite3_column_bytes(st, c)));
}

nlohmann::ordered_json CellJson(sqlite3_stmt* st, int c) {
  switch (sqlite3_column_type(st, c)) {
    case SQLITE_INTEGER: return sqlite3_column_int64(st, c);
    case SQLITE_FLOAT: return sqlite3_column_double(st, c);
    case SQLITE_NULL: return nullptr;
    default: return ColumnText(st, c);
  }
}

// A cell as text: reals with 6 significant digits for a person (`short_reals`), else the
// shortest text that reads back as the same double (csv is for programs).
std::string CellText(sqlite3_stmt* st, int c, std::string_view null_text, bool short_reals) {
  switch (sqlite3_column_type(st, c)) {
    case SQLITE_INTEGER: return fmt::format("{}", sqlite3_column_int64(st, c));
    case SQLITE_FLOAT:
      return short_reals ? fmt::format("{:.6g}", sqlite3_column_double(st, c))
                         : fmt::format("{}", sqlite3_column_double(st, c));
    case SQLITE_NULL: return std::string(null_text);
    default: return ColumnText(st, c);
  }
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

void AppendCsvLine(const std::vector<std::string>& cells, std::string* out) {
  for (size_t c = 0; c < cells.size(); ++c) *out += (c ? "," : "") + CsvField(cells[c]);
  *out += "\n";
}

// The rows of a statement in one format, kept as text only: csv and json as their output, text as
// each cell's (cut) text end to end, for the column widths. A SELECT * of 1M slices kept every
// cell as a JSON value: 1.1 GB and 7 s for text, 0.5 GB for csv.
class Rendering {
 public:
  Rendering(std::vector<std::string> columns, std::string format)
      : columns_(std::move(columns)), format_(std::move(format)), width_(columns_.size()) {
    if (format_ == "csv") AppendCsvLine(columns_, &out_);
  }

  void AddRow(sqlite3_stmt* st) {
    const int n = static_cast<int>(columns_.size());
    if (format_ == "json") {
      nlohmann::ordered_json row = nlohmann::ordered_json::array();
      for (int c = 0; c < n; ++c) row.push_back(CellJson(st, c));
      out_ += rows_ ? ",\n    " : "\n    ";
      out_ += row.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
    } else if (format_ == "csv") {
      line_.resize(columns_.size());
      for (int c = 0; c < n; ++c) line_[c] = CellText(st, c, "", /*short_reals=*/false);
      AppendCsvLine(line_, &out_);
    } else {
      for (int c = 0; c < n; ++c) {
        const int type = sqlite3_column_type(st, c);
        std::string s = Printable(CellText(st, c, "NULL", /*short_reals=*/true));  // csv and json keep the bytes
        if (s.size() > kMaxWidth) s = s.substr(0, kMaxWidth - 3) + "...";
        width_[c] = std::max(width_[c], s.size());
        out_ += s;
        cell_end_.push_back(out_.size());
        cell_number_.push_back(type == SQLITE_INTEGER || type == SQLITE_FLOAT);
      }
    }
    ++rows_;
  }

  std::string Finish() {
    if (format_ == "json") {
      // The rows were written as they came, one compact array per line; the document around them
      // is the usual one.
      nlohmann::ordered_json doc = NewJsonDocument("query");
      doc["columns"] = columns_;
      doc["rows"] = nlohmann::ordered_json::array();
      std::string head = DumpJson(doc);
      const std::string_view empty_rows = "[]\n}\n";
      head.resize(head.size() - empty_rows.size());
      return head + "[" + out_ + (rows_ ? "\n  ]\n}\n" : "]\n}\n");
    }
    if (format_ == "csv") return std::move(out_);
    return TextTable();
  }

 private:
  static constexpr size_t kMaxWidth = 60;  // a longer text cell is cut

  // Columns aligned (numbers to the right), from the cells kept end to end in out_.
  std::string TextTable() const {
    const size_t n = columns_.size();
    std::vector<size_t> width = width_;
    for (size_t c = 0; c < n; ++c) width[c] = std::max(width[c], columns_[c].size());
    std::string out;
    auto cell = [&](std::string_view s, size_t c, bool number) {
      out += c ? "  " : "";
      out += number ? fmt::format("{:>{}}", s, width[c]) : fmt::format("{:<{}}", s, width[c]);
    };
    for (size_t c = 0; c < n; ++c) cell(columns_[c], c, rows_ > 0 && cell_number_[c]);  // headers align with their values
    out += "\n";
    size_t begin = 0;
    for (size_t i = 0; i < cell_end_.size(); ++i) {
      cell(std::string_view(out_).substr(begin, cell_end_[i] - begin), i % n, cell_number_[i]);
      begin = cell_end_[i];
      if (i % n == n - 1) out += "\n";
    }
    out += fmt::format("({} row{})\n", rows_, rows_ == 1 ? "" : "s");
    return out;
  }

  std::vector<std::string> columns_;
  std::string format_;
  size_t rows_ = 0;
  std::string out_;                  // csv: the text; json: the rows' arrays; text: the cells end to end
  std::vector<std::string> line_;    // csv: the row being written
  std::vector<size_t> width_;        // text: the widest cell of each column
  std::vector<size_t> cell_end_;     // text: where each cell ends in out_
  std::vector<bool> cell_number_;    // text: whether each cell is a number
};

CommandResult RunQuery(const QueryOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"text", "csv", "json"};
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(o.output, kFormats, "text"));
  ASSIGN_OR_RETURN(Db db, OpenDatabase(o.trace, ctx));
  // A query reads: ATTACH (which creates a file) is denied here, and anything that would write
  // (VACUUM INTO a file, INSERT) is refused below, so that no file is written but the output.
  sqlite3_set_authorizer(
      db.get(),
      [](void*, int action, const char*, const char*, const char*, const char*) {
        return action == SQLITE_ATTACH || action == SQLITE_DETACH ? SQLITE_DENY : SQLITE_OK;
      },
      nullptr);
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db.get(), o.sql.c_str(), static_cast<int>(o.sql.size()), &raw, &tail) != SQLITE_OK) {
    if (sqlite3_errcode(db.get()) == SQLITE_AUTH)
      return InvalidInput("query: ATTACH and DETACH are not run: a query reads this trace only");
    return InvalidInput("query: {} (tables: SELECT * FROM cprof_schema)", sqlite3_errmsg(db.get()));
  }
  std::unique_ptr<sqlite3_stmt, StmtCloser> st(raw);
  if (!st) return InvalidInput("query: no SQL statement given");
  if (tail && std::string_view(tail).find_first_not_of(" \t\r\n;") != std::string_view::npos) {
    return InvalidInput("query: one statement at a time; this one continues with '{}'",
                        std::string_view(tail).substr(0, 40));
  }
  if (!sqlite3_stmt_readonly(st.get()))
    return InvalidInput("query: only statements that read are run (SELECT, WITH, EXPLAIN); this one writes");
  std::vector<std::string> columns;
  for (int c = 0; c < sqlite3_column_count(st.get()); ++c) columns.push_back(sqlite3_column_name(st.get(), c));
  Rendering rendering(std::move(columns), format);
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) rendering.AddRow(st.get());
  if (rc != SQLITE_DONE) return InvalidInput("query: {}", sqlite3_errmsg(db.get()));
  RETURN_IF_ERROR(WriteOutput(o.output, rendering.Finish(), ctx));
  return ExitCode::kOk;
}

}  // namespace

Command AddQueryCommand(CLI::App& root) {
  auto o = std::make_shared<QueryOptions>();
  CLI::App* cmd = root.add_subcommand("query", "one SQL statement over a trace's tables (SELECT * FROM cprof_schema)");
  cmd->add_option("trace", o->trace, "a trace in any supported format, or a .sqlite file `convert` wrote")->required();
  cmd->add_option("sql", o->sql, "the statement, e.g. \"SELECT name, SUM(dur_ns) FROM slice GROUP BY name\"")
      ->required();
  AddOutputOptions(cmd, &o->output, "text, csv, json");
  return {cmd, [o](CommandContext& ctx) { return RunQuery(*o, ctx); }};
}

}  // namespace cprof::cli
