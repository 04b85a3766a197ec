// `cann-profiler query TRACE "SQL" [--format text|csv|json] [-o FILE]`: one SQL statement over a
// trace's tables (the schema of export/sqlite/sqlite_writer.h; `SELECT * FROM cprof_schema` lists
// it) and its rows, like Perfetto's trace processor shell or `nsys stats` reports, for the
// questions the other commands do not ask. TRACE is any trace the other commands read, loaded
// into an in-memory database, or a database `convert` wrote, opened read-only as it is.
#include <sqlite3.h>

#include <fstream>
#include <memory>

#include <fmt/format.h>

#include "cli/commands.h"
#include "cli/json_values.h"
#include "export/sqlite/sqlite_writer.h"
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

bool StartsLikeSqlite(const std::string& path) {
  char head[16] = {};
  std::ifstream in(path, std::ios::binary);
  return in.read(head, sizeof head) && std::string_view(head, sizeof head) == std::string_view("SQLite format 3\0", 16);
}

// The database to query: a `convert` output as it is, or the trace loaded into memory.
StatusOr<Db> OpenDatabase(const std::string& path, CommandContext& ctx) {
  if (StartsLikeSqlite(path)) {
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

nlohmann::ordered_json CellJson(sqlite3_stmt* st, int c) {
  switch (sqlite3_column_type(st, c)) {
    case SQLITE_INTEGER: return sqlite3_column_int64(st, c);
    case SQLITE_FLOAT: return sqlite3_column_double(st, c);
    case SQLITE_NULL: return nullptr;
    default: {
      const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(st, c));
      return std::string(text ? text : "", static_cast<size_t>(sqlite3_column_bytes(st, c)));
    }
  }
}

std::string CellText(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "NULL";
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return fmt::format("{:.6g}", v.get<double>());
  return v.dump();
}

std::string CsvField(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string out = "\"";
  for (char ch : s) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string Render(const std::vector<std::string>& columns, const std::vector<std::vector<nlohmann::ordered_json>>& rows,
                   const std::string& format) {
  if (format == "json") {
    nlohmann::ordered_json doc = NewJsonDocument("query");
    doc["columns"] = columns;
    doc["rows"] = rows;
    return DumpJson(doc);
  }
  std::string out;
  if (format == "csv") {
    auto line = [&](const std::vector<std::string>& cells) {
      for (size_t c = 0; c < cells.size(); ++c) out += (c ? "," : "") + CsvField(cells[c]);
      out += "\n";
    };
    line(columns);
    for (const auto& row : rows) {
      std::vector<std::string> cells;
      for (const auto& v : row) cells.push_back(v.is_null() ? "" : CellText(v));
      line(cells);
    }
    return out;
  }
  // Text: columns aligned (numbers to the right), a cell longer than 60 characters cut.
  constexpr size_t kMaxWidth = 60;
  std::vector<std::vector<std::string>> cells;
  std::vector<size_t> width(columns.size());
  for (size_t c = 0; c < columns.size(); ++c) width[c] = columns[c].size();
  for (const auto& row : rows) {
    std::vector<std::string> line;
    for (size_t c = 0; c < row.size(); ++c) {
      std::string s = CellText(row[c]);
      if (s.size() > kMaxWidth) s = s.substr(0, kMaxWidth - 3) + "...";
      width[c] = std::max(width[c], s.size());
      line.push_back(std::move(s));
    }
    cells.push_back(std::move(line));
  }
  for (size_t c = 0; c < columns.size(); ++c) {
    bool number = !rows.empty() && rows[0][c].is_number();  // headers align with their values
    out += c ? "  " : "";
    out += number ? fmt::format("{:>{}}", columns[c], width[c]) : fmt::format("{:<{}}", columns[c], width[c]);
  }
  out += "\n";
  for (size_t r = 0; r < cells.size(); ++r) {
    for (size_t c = 0; c < cells[r].size(); ++c) {
      bool number = rows[r][c].is_number();
      out += c ? "  " : "";
      out += number ? fmt::format("{:>{}}", cells[r][c], width[c]) : fmt::format("{:<{}}", cells[r][c], width[c]);
    }
    out += "\n";
  }
  out += fmt::format("({} row{})\n", rows.size(), rows.size() == 1 ? "" : "s");
  return out;
}

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
  std::vector<std::vector<nlohmann::ordered_json>> rows;
  int rc;
  while ((rc = sqlite3_step(st.get())) == SQLITE_ROW) {
    std::vector<nlohmann::ordered_json> row;
    for (int c = 0; c < static_cast<int>(columns.size()); ++c) row.push_back(CellJson(st.get(), c));
    rows.push_back(std::move(row));
  }
  if (rc != SQLITE_DONE) return InvalidInput("query: {}", sqlite3_errmsg(db.get()));
  RETURN_IF_ERROR(WriteOutput(o.output, Render(columns, rows, format), ctx));
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
