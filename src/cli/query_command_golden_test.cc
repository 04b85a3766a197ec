// `query` on a real Kineto trace: the rows agree with `info`, every output format, a database
// written by `convert` answers as the trace does, and bad SQL is a usage error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli/cli_test_util.h"

namespace cprof::cli {
namespace {
namespace fs = std::filesystem;
using cli_test::Result;
using cli_test::RunArgs;

const std::string kTrace =
    std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/critical_path/cuda_event_sync/event_sync_trace.json.gz";

nlohmann::json Rows(const std::string& trace, const std::string& sql) {
  Result r = RunArgs({"query", trace, sql, "--json"});
  EXPECT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out, nullptr, false);
  EXPECT_FALSE(doc.is_discarded()) << r.out;
  EXPECT_EQ(doc["kind"], "query");
  return doc["rows"];
}

TEST(QueryCommand, CountsAgreeWithInfo) {
  Result info = RunArgs({"info", kTrace, "--json"});
  ASSERT_EQ(info.code, 0) << info.err;
  nlohmann::json tables = nlohmann::json::parse(info.out)["tables"];
  EXPECT_EQ(Rows(kTrace, "SELECT COUNT(*) FROM slice")[0][0], tables["slices"]);
  EXPECT_EQ(Rows(kTrace, "SELECT COUNT(*) FROM track")[0][0], tables["tracks"]);
  EXPECT_EQ(Rows(kTrace, "SELECT COUNT(*) FROM flow")[0][0], tables["flows"]);
  // Kernels on GPU streams, found through the track table.
  nlohmann::json kernels =
      Rows(kTrace, "SELECT COUNT(*) FROM slice s JOIN track t ON t.id = s.track_id WHERE t.kind = 'gpu_stream'");
  EXPECT_GT(kernels[0][0].get<int64_t>(), 0);
}

TEST(QueryCommand, TextCsvAndJsonOutputs) {
  const std::string sql = "SELECT name, COUNT(*) AS n, SUM(dur_ns) AS total_ns FROM slice GROUP BY name ORDER BY total_ns DESC, name LIMIT 3";
  nlohmann::json rows = Rows(kTrace, sql);
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_GE(rows[0][2].get<int64_t>(), rows[1][2].get<int64_t>());
  Result text = RunArgs({"query", kTrace, sql});
  ASSERT_EQ(text.code, 0) << text.err;
  EXPECT_EQ(text.out.rfind("name", 0), 0u) << text.out;
  EXPECT_NE(text.out.find(rows[0][0].get<std::string>()), std::string::npos);
  EXPECT_NE(text.out.find("(3 rows)"), std::string::npos) << text.out;
  Result csv = RunArgs({"query", kTrace, sql, "--format", "csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(csv.out.substr(0, csv.out.find('\n')), "name,n,total_ns");
  EXPECT_NE(csv.out.find("," + std::to_string(rows[0][2].get<int64_t>()) + "\n"), std::string::npos) << csv.out;
  // csv is for programs: a real reads back as the same double; text shows 6 digits. NULL is an
  // empty field in csv, NULL in text; quotes and commas are quoted.
  const std::string cells = "SELECT 1.0 / 3 AS x, NULL AS n, 'a,\"b' AS q";
  EXPECT_EQ(RunArgs({"query", kTrace, cells, "--format", "csv"}).out, "x,n,q\n0.3333333333333333,,\"a,\"\"b\"\n");
  EXPECT_EQ(RunArgs({"query", kTrace, cells}).out, "       x  n     q   \n0.333333  NULL  a,\"b\n(1 row)\n");
}

// json writes each row as it comes, one compact array per line, inside the usual document: the
// rows are never held as JSON values (a SELECT * of 300k slices: 330 MB -> 130 MB).
TEST(QueryCommand, JsonRowsAreOneLineEachAndNoRowsIsAnEmptyList) {
  Result r = RunArgs({"query", kTrace, "SELECT 1 AS a, 'x' AS b UNION ALL SELECT 2, NULL", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\n    [1,\"x\"],\n    [2,null]\n  ]\n}\n"), std::string::npos) << r.out;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["columns"], nlohmann::json({"a", "b"}));
  EXPECT_EQ(doc["rows"], nlohmann::json::parse(R"([[1, "x"], [2, null]])"));
  nlohmann::json none = nlohmann::json::parse(RunArgs({"query", kTrace, "SELECT * FROM slice LIMIT 0", "--json"}).out);
  EXPECT_TRUE(none["rows"].is_array() && none["rows"].empty()) << none.dump();
  EXPECT_EQ(none["columns"].size(), 10u);
}

TEST(QueryCommand, ADatabaseConvertWroteAnswersAsTheTraceDoes) {
  fs::path db = fs::temp_directory_path() / ("cprof_query_" + std::to_string(::getpid()) + ".sqlite");
  Result conv = RunArgs({"convert", kTrace, db.string()});
  ASSERT_EQ(conv.code, 0) << conv.err;
  const std::string sql = "SELECT t.kind, COUNT(*), SUM(s.dur_ns) FROM slice s JOIN track t ON t.id = s.track_id GROUP BY 1 ORDER BY 1";
  EXPECT_EQ(Rows(db.string(), sql), Rows(kTrace, sql));
  EXPECT_EQ(Rows(db.string(), "SELECT COUNT(*) FROM cprof_schema WHERE table_name = 'slice'")[0][0], 10);
  // Opened read-only: a write is refused and the file is unchanged.
  Result write = RunArgs({"query", db.string(), "DELETE FROM slice"});
  EXPECT_EQ(write.code, 2);
  EXPECT_NE(write.err.find("only statements that read"), std::string::npos) << write.err;
  // The other commands say what the file is and where to ask it.
  Result summary = RunArgs({"summary", db.string()});
  EXPECT_EQ(summary.code, 2);
  EXPECT_NE(summary.err.find("a cann-profiler SQLite export"), std::string::npos) << summary.err;
  fs::remove(db);
}

TEST(QueryCommand, BadSqlIsAUsageError) {
  Result syntax = RunArgs({"query", kTrace, "SELEC name FROM slice"});
  EXPECT_EQ(syntax.code, 2);
  EXPECT_NE(syntax.err.find("syntax error"), std::string::npos) << syntax.err;
  EXPECT_NE(syntax.err.find("cprof_schema"), std::string::npos) << syntax.err;
  Result table = RunArgs({"query", kTrace, "SELECT * FROM slices"});
  EXPECT_EQ(table.code, 2);
  EXPECT_NE(table.err.find("no such table: slices"), std::string::npos) << table.err;
  Result two = RunArgs({"query", kTrace, "SELECT 1; SELECT 2"});
  EXPECT_EQ(two.code, 2);
  EXPECT_NE(two.err.find("one statement"), std::string::npos) << two.err;
  EXPECT_EQ(RunArgs({"query", "/nonexistent.json", "SELECT 1"}).code, 2);
}

// A query writes no file: VACUUM INTO and ATTACH (which creates its database) are refused.
TEST(QueryCommand, StatementsThatWriteFilesAreRefused) {
  const std::filesystem::path dir = TestDir("query_writes");
  const std::string vacuum = (dir / "copy.db").string(), attach = (dir / "other.db").string();
  Result v = RunArgs({"query", kTrace, "VACUUM INTO '" + vacuum + "'"});
  EXPECT_EQ(v.code, 2);
  EXPECT_NE(v.err.find("only statements that read"), std::string::npos) << v.err;
  Result a = RunArgs({"query", kTrace, "ATTACH DATABASE '" + attach + "' AS other"});
  EXPECT_EQ(a.code, 2);
  EXPECT_NE(a.err.find("ATTACH"), std::string::npos) << a.err;
  EXPECT_FALSE(std::filesystem::exists(vacuum));
  EXPECT_FALSE(std::filesystem::exists(attach));
  EXPECT_EQ(RunArgs({"query", kTrace, "PRAGMA table_info(slice)"}).code, 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cprof::cli
