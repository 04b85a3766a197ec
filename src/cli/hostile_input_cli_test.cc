// Hostile inputs end to end through the commands (in-process RunCli): --max-memory and
// --max_gzip_ratio on every command that imports, a decompression bomb, HTML and `</script>` in
// names (the visualize page must keep them inside its data block), invalid UTF-8 names from a
// real Nsight Systems export, and cyclic flows through summary, diagnose and visualize.
#include <sqlite3.h>
#include <sys/wait.h>
#include <zlib.h>

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "import/gzip_test_util.h"
#include "cli/cli_test_util.h"
#include "cli/commands.h"

namespace cprof::cli {
namespace {

namespace fs = std::filesystem;
using cli_test::ReadFile;
using cli_test::Result;
using cli_test::RunArgs;

size_t Count(const std::string& s, std::string_view what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

void WriteFile(const fs::path& p, std::string_view content) {
  std::ofstream(p, std::ios::binary).write(content.data(), static_cast<std::streamsize>(content.size()));
}

const std::string kKineto = std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/nccl_parser_config/nccl_data.json.gz";

TEST(HostileInputCliTest, EveryImportingCommandTakesTheLimitFlags) {
  for (const char* cmd : {"summary", "info", "convert", "validate", "compare", "diagnose", "recommend-runtime",
                          "case-card", "visualize", "cluster", "query"}) {
    ASSERT_TRUE(CommandImportsTraces(cmd)) << cmd;
    Result r = RunArgs({cmd, "--help"});
    EXPECT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find("--max_memory"), std::string::npos) << cmd;
    EXPECT_NE(r.out.find("--max_gzip_ratio"), std::string::npos) << cmd;
  }
  EXPECT_FALSE(CommandImportsTraces("tune"));
}

TEST(HostileInputCliTest, MaxMemoryFailsCleanlyNamingFileAndLimit) {
  for (const char* spelling : {"--max-memory", "--max_memory"}) {
    Result r = RunArgs({"summary", kKineto, spelling, "1M"});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(kKineto), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("memory limit of 1 MiB"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("raise it with --max_memory"), std::string::npos) << r.err;  // README's spelling
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;  // one line
  }
  // Below a MiB the limit keeps its unit (it read "memory limit of 0 MiB").
  Result tiny = RunArgs({"summary", kKineto, "--max_memory", "1K"});
  EXPECT_EQ(tiny.code, 2) << tiny.err;
  EXPECT_NE(tiny.err.find("memory limit of 1 KiB ("), std::string::npos) << tiny.err;
  Result ok = RunArgs({"summary", kKineto, "--max-memory", "512M"});
  EXPECT_EQ(ok.code, 0) << ok.err;
  Result unlimited = RunArgs({"info", kKineto, "--max-memory", "0"});
  EXPECT_EQ(unlimited.code, 0) << unlimited.err;
  Result bad = RunArgs({"summary", kKineto, "--max-memory", "4X"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--max_memory: '4X' is not a size"), std::string::npos) << bad.err;
}


TEST(HostileInputCliTest, DecompressionBombIsAOneLineError) {
  const fs::path dir = TestDir("hostile_cli");
  // '[' then 2 members of 64 MiB of spaces (concatenated gzip members): 128 MiB from 130 KB,
  // past the 64 MiB after which the ratio is checked.
  const std::string member = GzipMember(std::string(64u << 20, ' '));
  std::string bomb = GzipMember("[");
  for (int i = 0; i < 2; ++i) bomb += member;
  const fs::path path = dir / "bomb.json.gz";
  WriteFile(path, bomb);
  Result r = RunArgs({"summary", path.string()});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find(path.string()), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("decompression bomb"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--max_gzip_ratio"), std::string::npos) << r.err;
  // A negative or overflowing limit is refused, not wrapped into no limit at all.
  for (const char* bad : {"-3", "-0", "99999999999999999999", "2.5"}) {
    Result refused = RunArgs({"info", path.string(), "--max_gzip_ratio", bad});
    EXPECT_EQ(refused.code, 2) << bad << ": " << refused.err;
    EXPECT_NE(refused.err.find("0 or more"), std::string::npos) << refused.err;
  }
  // Raising the ratio limit lets it through to the JSON check: whitespace after '[' is an array
  // with no events, which imports as an empty trace (a correct partial result).
  Result raised = RunArgs({"info", path.string(), "--max-gzip-ratio", "0"});
  EXPECT_EQ(raised.code, 0) << raised.err;
  // query imports too: its error named a flag it did not take.
  EXPECT_EQ(RunArgs({"query", path.string(), "SELECT 1"}).code, 2);
  Result queried = RunArgs({"query", path.string(), "SELECT 1", "--max_gzip_ratio", "0"});
  EXPECT_EQ(queried.code, 0) << queried.err;
  // The installed program says the same, in one line on stderr, with exit code 2.
  const fs::path err = dir / "stderr";
  const std::string cmd = std::string(CPROF_BINARY_DIR) + "/cann-profiler summary " + path.string() +
                          " --max-memory 1G >/dev/null 2>" + err.string();
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 2);
  const std::string text = ReadFile(err);
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1) << text;
  EXPECT_NE(text.find("decompression bomb"), std::string::npos) << text;
  fs::remove_all(dir);
}

// A trace whose names carry HTML, script end tags and comment openers, with cyclic flows.
std::string EvilTrace() {
  return R"([
    {"ph": "M", "name": "process_name", "pid": 1, "args": {"name": "</script><script>alert('p')</script>"}},
    {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "<!--<script>"}},
    {"ph": "X", "cat": "cpu_op", "name": "</script><script>alert(1)</script>", "pid": 1, "tid": 1, "ts": 10, "dur": 100,
     "args": {"</SCRIPT>": "<img src=x onerror=alert(2)>", "nested": {"a": "</script >"}}},
    {"ph": "X", "cat": "cpu_op", "name": "<b>bold</b>&amp;", "pid": 1, "tid": 2, "ts": 20, "dur": 50},
    {"ph": "s", "id": 1, "pid": 1, "tid": 1, "ts": 30, "cat": "x", "name": "x"},
    {"ph": "f", "id": 1, "pid": 1, "tid": 2, "ts": 40, "cat": "x", "name": "x", "bp": "e"},
    {"ph": "s", "id": 2, "pid": 1, "tid": 2, "ts": 45, "cat": "x", "name": "x"},
    {"ph": "f", "id": 2, "pid": 1, "tid": 1, "ts": 50, "cat": "x", "name": "x", "bp": "e"},
    {"ph": "X", "cat": "cpu_op", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 5, "dur": 200}
  ])";
}

// The page holds exactly its two script elements, and no trace text outside them as markup.
void ExpectScriptsIntact(const std::string& html) {
  EXPECT_EQ(Count(html, "<script"), 2u);
  EXPECT_EQ(Count(html, "</script"), 2u);
  EXPECT_EQ(Count(html, "</SCRIPT"), 0u);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>bold"), std::string::npos);
  EXPECT_EQ(html.find("alert("), std::string::npos);
}

TEST(HostileInputCliTest, HtmlInNamesStaysInsideTheVisualizeDataBlockAndCyclesEnd) {
  const fs::path dir = TestDir("hostile_cli");
  const fs::path trace = dir / "evil.json";
  WriteFile(trace, EvilTrace());
  const fs::path html = dir / "map.html";
  Result v = RunArgs({"visualize", "--trace", trace.string(), "--output", html.string()});
  ASSERT_EQ(v.code, 0) << v.err;
  ExpectScriptsIntact(ReadFile(html));
  // The cyclic flows go through the analyses without hanging.
  Result s = RunArgs({"summary", trace.string(), "--json"});
  EXPECT_EQ(s.code, 0) << s.err;
  Result d = RunArgs({"diagnose", "--trace", trace.string(), "--json"});
  EXPECT_EQ(d.code, 0) << d.err;
  Result c = RunArgs({"convert", trace.string(), (dir / "evil.pb").string()});
  EXPECT_EQ(c.code, 0) << c.err;
  Result v2 = RunArgs({"visualize", "--trace", (dir / "evil.pb").string(), "--output", (dir / "map2.html").string()});
  ASSERT_EQ(v2.code, 0) << v2.err;
  ExpectScriptsIntact(ReadFile(dir / "map2.html"));
  fs::remove_all(dir);
}

TEST(HostileInputCliTest, InvalidUtf8AndScriptNamesFromAnNsysExport) {
  const fs::path dir = TestDir("hostile_cli");
  const fs::path db_path = dir / "evil.sqlite";
  fs::copy_file(std::string(CPROF_FIXTURES_DIR) + "/nsys/cloverleaf-cuda.sqlite", db_path);
  fs::permissions(db_path, fs::perms::owner_read | fs::perms::owner_write);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  // Every kernel name: invalid UTF-8 bytes, a script end tag, a NUL.
  const char* sql =
      "UPDATE StringIds SET value = CAST(X'C3283C2F7363726970743E3C7363726970743E616C6572742833293C2F7363726970743E"
      "FF00FE' AS TEXT) WHERE id IN (SELECT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT shortName "
      "FROM CUPTI_ACTIVITY_KIND_KERNEL);";
  char* err = nullptr;
  ASSERT_EQ(sqlite3_exec(db, sql, nullptr, nullptr, &err), SQLITE_OK) << (err ? err : "");
  sqlite3_close(db);

  Result s = RunArgs({"summary", db_path.string(), "--json"});
  EXPECT_EQ(s.code, 0) << s.err;
  EXPECT_TRUE(nlohmann::json::accept(s.out)) << "summary --json is not valid JSON";
  const fs::path html = dir / "map.html";
  Result v = RunArgs({"visualize", "--trace", db_path.string(), "--output", html.string()});
  ASSERT_EQ(v.code, 0) << v.err;
  ExpectScriptsIntact(ReadFile(html));
  Result d = RunArgs({"diagnose", "--trace", db_path.string(), "--json"});
  EXPECT_EQ(d.code, 0) << d.err;
  EXPECT_TRUE(nlohmann::json::accept(d.out)) << "diagnose --json is not valid JSON";
  Result c = RunArgs({"convert", db_path.string(), (dir / "evil.json.gz").string()});
  EXPECT_EQ(c.code, 0) << c.err;
  // What convert wrote reads back (names with invalid UTF-8 were made valid on the way out).
  Result back = RunArgs({"info", (dir / "evil.json.gz").string()});
  EXPECT_EQ(back.code, 0) << back.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof::cli
