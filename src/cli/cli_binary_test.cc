// Runs the built cann-profiler binary like a user: exit codes, one-line errors that name the
// file, both flag spellings, machine-readable output with schema_version, and no output file
// left behind on error.
#include <sys/wait.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace {

namespace fs = std::filesystem;

struct ExecResult {
  int code = -1;
  std::string out;
  std::string err;
};

std::string ReadFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class CliBinaryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cprof_cli_test_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  // `args` is pasted into a shell command line; tests only pass simple words and paths.
  ExecResult Exec(const std::string& args) {
    std::string cmd = std::string(CPROF_BINARY_DIR) + "/cann-profiler " + args + " >" + (dir_ / "stdout").string() +
                      " 2>" + (dir_ / "stderr").string();
    int status = std::system(cmd.c_str());
    ExecResult r;
    r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = ReadFile(dir_ / "stdout");
    r.err = ReadFile(dir_ / "stderr");
    return r;
  }
  std::string Write(const std::string& name, const std::string& bytes) {
    fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary) << bytes;
    return p.string();
  }
  static size_t Lines(const std::string& s) { return static_cast<size_t>(std::count(s.begin(), s.end(), '\n')); }

  fs::path dir_;
};

TEST_F(CliBinaryTest, HelpAndVersionExitZero) {
  EXPECT_EQ(Exec("--help").code, 0);
  ExecResult r = Exec("summary --help");
  EXPECT_EQ(r.code, 0);
  EXPECT_NE(r.out.find("--time_range"), std::string::npos);
  EXPECT_EQ(Exec("--version").code, 0);
}

TEST_F(CliBinaryTest, UsageErrorsExitTwo) {
  ExecResult r = Exec("no-such-command");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_EQ(Exec("").code, 2);
  EXPECT_EQ(Exec("summary").code, 2);  // missing TRACE
  EXPECT_EQ(Exec("summary x.json --top 0").code, 2);
  EXPECT_EQ(Exec("summary x.json --no_such_flag").code, 2);
}

TEST_F(CliBinaryTest, MissingAndMalformedInputExitTwoWithOneLineNamingTheFile) {
  std::string missing = (dir_ / "missing.json").string();
  std::string garbage = Write("garbage.json", "this is not a trace\n");
  std::string empty = Write("empty.json", "");
  for (const std::string& path : {missing, garbage, empty}) {
    for (const char* cmd : {"summary", "info"}) {
      ExecResult r = Exec(std::string(cmd) + " " + path);
      EXPECT_EQ(r.code, 2) << cmd << " " << path << ": " << r.err;
      EXPECT_EQ(Lines(r.err), 1u) << r.err;
      EXPECT_NE(r.err.find(path), std::string::npos) << r.err;
      EXPECT_TRUE(r.out.empty()) << r.out;
    }
  }
}

TEST_F(CliBinaryTest, NoOutputFileLeftBehindOnError) {
  std::string garbage = Write("garbage.json", "{\"traceEvents\": [ {\"ph\": \"X\", ");
  fs::path report = dir_ / "report.json";
  fs::path converted = dir_ / "converted.pb";
  EXPECT_EQ(Exec("summary " + garbage + " --output " + report.string()).code, 2);
  EXPECT_EQ(Exec("convert " + garbage + " " + converted.string()).code, 2);
  EXPECT_EQ(Exec("convert " + garbage + " " + (dir_ / "x.unknown").string()).code, 2);
  EXPECT_EQ(Exec("summary " + garbage + " --time_range bogus --output " + report.string()).code, 2);
  for (const auto& entry : fs::directory_iterator(dir_)) {
    std::string name = entry.path().filename().string();
    EXPECT_TRUE(name == "garbage.json" || name == "stdout" || name == "stderr") << "left behind: " << name;
  }
}

TEST_F(CliBinaryTest, UnknownMetricListsAvailableOnes) {
  ExecResult r = Exec("metrics lantency");
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(Lines(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find("unknown metric 'lantency'"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("available: "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("p99_latency"), std::string::npos) << r.err;
  EXPECT_EQ(Exec("metrics latency,p99_latency").code, 0);
}

// A metric this machine cannot measure is a check that fails (exit 1) with its row and reason, not
// bad input (exit 2) while the list shows it. Which ones are unavailable depends on the machine.
TEST_F(CliBinaryTest, AMetricThisMachineLacksFailsTheCheckWithItsReason) {
  nlohmann::json all = nlohmann::json::parse(Exec("metrics --json").out);
  int checked = 0;
  for (const auto& m : all["metrics"]) {
    const std::string name = m["name"];
    ExecResult r = Exec("metrics " + name + " --json");
    nlohmann::json one = nlohmann::json::parse(r.out);
    ASSERT_EQ(one["metrics"].size(), 1u) << name;
    EXPECT_EQ(one["metrics"][0]["available"], m["available"]) << name;
    if (m["available"]) {
      EXPECT_EQ(r.code, 0) << name << ": " << r.err;
    } else {
      EXPECT_EQ(r.code, 1) << name << ": " << r.err;
      EXPECT_NE(r.err.find("metric '" + name + "' cannot be measured on this machine ("), std::string::npos) << r.err;
      ++checked;
    }
  }
  EXPECT_EQ(Exec("metrics latency,lantency").code, 2);
  std::cout << checked << " metrics unavailable here\n";
}

TEST_F(CliBinaryTest, JsonOutputCarriesSchemaVersion) {
  ExecResult r = Exec("metrics --json");
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_FALSE(doc["metrics"].empty());
  // --output with a .json extension picks JSON too, written atomically.
  fs::path out = dir_ / "metrics.json";
  ASSERT_EQ(Exec("metrics --output " + out.string()).code, 0);
  EXPECT_EQ(nlohmann::json::parse(ReadFile(out))["schema_version"], 1);
}

}  // namespace
