// `cann-profiler query TRACE "SQL" [--format text|csv|json] [-o FILE]`: one SQL statement over a
// trace's tables (the schema of export/sqlite/sqlite_writer.h; `SELECT * FROM cprof_schema` lists
// it) and its rows, like Perfetto's trace processor shell or `nsys stats` reports, for the
// questions the other commands do not ask. TRACE is any trace the other commands read, loaded
// into an in-memory database, or a database `convert` wrote, opened read-only as it is.
#include <sqlite3.h>

#include <memory>

#include <fmt/format.h>

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

// The rows of a statement in one format. Rows are kept only as the format needs them: csv as its
// text, text as each cell's (cut) text for the column widths, json as values. A SELECT * of 1M
// slices kept every cell as a JSON value: 1.1 GB and 7 s for text, 0.5 GB for csv.
class Rendering {
 public:
  Rendering(std::vector<std::string> columns, std::string format)
      : columns_(std::move(columns)), format_(std::move(format)) {
    if (format_ == "csv") AppendCsvLine(columns_, &out_);
  }

  void AddRow(sqlite3_stmt* st) {
    const int n = static_cast<int>(columns_.size());
    if (format_ == "json") {
      std::vector<nlohmann::ordered_json> row;
      for (int c = 0; c < n; ++c) row.push_back(CellJson(st, c));
      json_rows_.push_back(std::move(row));
    } else if (format_ == "csv") {
      line_.resize(columns_.size());
      for (int c = 0; c < n; ++c) line_[c] = CellText(st, c, "", /*short_reals=*/false);
      AppendCsvLine(line_, &out_);
    } else {
      std::vector<TextCell> row;
      for (int c = 0; c < n; ++c) {
        const int type = sqlite3_column_type(st, c);
        row.push_back({CellText(st, c, "NULL", /*short_reals=*/true), type == SQLITE_INTEGER || type == SQLITE_FLOAT});
      }
      text_rows_.push_back(std::move(row));
    }
  }

  std::string Finish() {
    if (format_ == "json") {
      nlohmann::ordered_json doc = NewJsonDocument("query");
      doc["columns"] = columns_;
      doc["rows"] = json_rows_;
      return DumpJson(doc);
    }
    if (format_ == "csv") return std::move(out_);
    return TextTable();
  }

 private:
  struct TextCell {
    std::string text;
    bool number;
  };

  // Columns aligned (numbers to the right), a cell longer than 60 characters cut.
  std::string TextTable() {
    constexpr size_t kMaxWidth = 60;
    std::vector<size_t> width(columns_.size());
    for (size_t c = 0; c < columns_.size(); ++c) width[c] = columns_[c].size();
    for (auto& row : text_rows_) {
      for (size_t c = 0; c < row.size(); ++c) {
        std::string& s = row[c].text;
        if (s.size() > kMaxWidth) s = s.substr(0, kMaxWidth - 3) + "...";
        width[c] = std::max(width[c], s.size());
      }
    }
    std::string out;
    auto cell = [&](const std::string& s, size_t c, bool number) {
      out += c ? "  " : "";
      out += number ? fmt::format("{:>{}}", s, width[c]) : fmt::format("{:<{}}", s, width[c]);
    };
    for (size_t c = 0; c < columns_.size(); ++c) {
      cell(columns_[c], c, !text_rows_.empty() && text_rows_[0][c].number);  // headers align with their values
    }
    out += "\n";
    for (const auto& row : text_rows_) {
      for (size_t c = 0; c < row.size(); ++c) cell(row[c].text, c, row[c].number);
      out += "\n";
    }
    out += fmt::format("({} row{})\n", text_rows_.size(), text_rows_.size() == 1 ? "" : "s");
    return out;
  }

  std::vector<std::string> columns_;
  std::string format_;
  std::string out_;                                              // csv
  std::vector<std::string> line_;                                // csv: the row being written
  std::vector<std::vector<TextCell>> text_rows_;                 // text
  std::vector<std::vector<nlohmann::ordered_json>> json_rows_;  // json
};

CommandResult RunQuery(const QueryOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"text", "csv", "json"};
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(o.output, kFormats, "text"));
  ASSIGN_OR_RETURN(Db db, OpenDatabase(o.trace, ctx));
  sqlite3_stmt* raw = nullptr;
  const char* tail = nullptr;
  if (sqlite3_prepare_v2(db.get(), o.sql.c_str(), static_cast<int>(o.sql.size()), &raw, &tail) != SQLITE_OK) {
    return InvalidInput("query: {} (tables: SELECT * FROM cprof_schema)", sqlite3_errmsg(db.get()));
  }
  std::unique_ptr<sqlite3_stmt, StmtCloser> st(raw);
  if (!st) return InvalidInput("query: no SQL statement given");
  if (tail && std::string_view(tail).find_first_not_of(" \t\r\n;") != std::string_view::npos) {
    return InvalidInput("query: one statement at a time; this one continues with '{}'",
                        std::string_view(tail).substr(0, 40));
  }
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
