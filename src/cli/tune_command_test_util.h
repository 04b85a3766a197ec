// What the `tune` CLI tests share: the binary, the replay fixtures, running `tune` as a process,
// a fresh folder per test, a file's text, the last JSON line of an output, the trials of an SQLite
// study.
//
//   ProcessResult r = Tune({"--replay", kPnpoly, "--budget", "5", "--json"});
//   EXPECT_EQ(LastJsonLine(r.out)["trials"], 5);
#pragma once

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/time_units.h"
#include "testing/test_dir.h"
#include "tune/trial_runner.h"

namespace cprof::cli::tune_test {

namespace fs = std::filesystem;
using tune::ProcessResult;
using tune::RunProcess;

inline const std::string kBinary = CPROF_BINARY_DIR "/cann-profiler";
inline const std::string kPnpoly = CPROF_FIXTURES_DIR "/tuning/pnpoly_RTX_3090.json.gz";
inline const std::string kGemm = CPROF_FIXTURES_DIR "/tuning/gemm_RTX_3090.json.gz";  // 78% of it absent

inline ProcessResult Tune(std::vector<std::string> args, const std::string& cwd = "/tmp") {
  args.insert(args.begin(), {kBinary, "tune"});
  return RunProcess(args, {}, 600 * kNsPerS, cwd);
}

// A file's whole text; "" when it cannot be read.
inline std::string ReadText(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

inline nlohmann::json LastJsonLine(const std::string& out) {
  size_t end = out.find_last_not_of('\n');
  size_t start = out.rfind('\n', end);
  std::string line = out.substr(start == std::string::npos ? 0 : start + 1, end + 1);
  return nlohmann::json::parse(line, nullptr, false);
}

// (key, state) of every trial in an SQLite study file.
inline std::vector<std::pair<std::string, std::string>> Trials(const std::string& db) {
  std::vector<std::pair<std::string, std::string>> out;
  sqlite3* h = nullptr;
  if (sqlite3_open_v2(db.c_str(), &h, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) return out;
  sqlite3_stmt* s = nullptr;
  sqlite3_prepare_v2(h, "SELECT key, state FROM cprof_tune_trials ORDER BY number", -1, &s, nullptr);
  while (s && sqlite3_step(s) == SQLITE_ROW)
    out.emplace_back(reinterpret_cast<const char*>(sqlite3_column_text(s, 0)),
                     reinterpret_cast<const char*>(sqlite3_column_text(s, 1)));
  sqlite3_finalize(s);
  sqlite3_close(h);
  return out;
}

}  // namespace cprof::cli::tune_test
