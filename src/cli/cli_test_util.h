// What the CLI tests share: run a command in-process (RunCli) and keep its exit code and
// streams; a fresh temporary folder per test; a file's text.
//
//   using namespace cprof::cli::cli_test;
//   Result r = RunArgs({"diagnose", "--trace", path, "--json"});
//   EXPECT_EQ(r.code, 0) << r.err;
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "cli/cli_app.h"
#include "testing/test_dir.h"

namespace cprof::cli::cli_test {

struct Result {
  int code;
  std::string out;
  std::string err;
};

inline Result RunArgs(const std::vector<std::string>& args) {
  std::ostringstream out, err;
  int code = RunCli(args, out, err);
  return {code, out.str(), err.str()};
}

inline std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace cprof::cli::cli_test
