// `diagnose` in-process (RunCli) and through the binary: formats, the human summary, both flag
// spellings, bad input (exit 2, the file named, nothing written).
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"
#include "cli/cli_test_util.h"
#include "report/diagnose/diagnosis_reader.h"
#include "report/visualize/map_finding.h"

namespace cprof::cli {
namespace {

namespace fs = std::filesystem;

const std::string kH100 =
    std::string(CPROF_FIXTURES_DIR) + "/kineto/tracelens/h100/gaunernst_bert-small-uncased__1016001.json.gz";
const std::string kNccl = std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/nccl_parser_config/nccl_data.json.gz";

using namespace cli_test;

TEST(DiagnoseCommandTest, JsonToStdoutHasTheDocumentedFields) {
  Result r = RunArgs({"diagnose", "--trace", kNccl, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  nlohmann::json doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["kind"], "diagnosis");
  EXPECT_EQ(doc["device"], "gpu");
  EXPECT_EQ(doc["steps"]["count"], 3);
  EXPECT_EQ(doc["content_hash"].get<std::string>().size(), 18u);
  ASSERT_FALSE(doc["findings"].empty());
  double last_score = 1e300;
  for (const auto& f : doc["findings"]) {
    for (const char* key : {"category", "title", "summary", "confidence", "confidence_terms", "saving_ns",
                            "saving_method", "cost_per_step_ns", "cost_total_ns", "evidence", "suggestions"})
      EXPECT_TRUE(f.contains(key)) << key;
    const double score = f["saving_ns"].get<double>() * f["confidence"].get<double>();
    EXPECT_LE(score, last_score) << "ranked by saving x confidence";
    last_score = score;
  }
}

TEST(DiagnoseCommandTest, OutputFileGetsTheReportAndStdoutASummary) {
  fs::path dir = TestDir("diagnose");
  const std::string yaml = (dir / "root_cause_report.yaml").string();
  Result r = RunArgs({"diagnose", "--trace", kNccl, "--output", yaml});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1. ["), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("confidence"), std::string::npos);
  EXPECT_NE(r.out.find("report: " + yaml), std::string::npos);
  StatusOr<Diagnosis> d = LoadDiagnosis(yaml);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_EQ(d->trace_path, kNccl);
  EXPECT_FALSE(d->findings.empty());
  StatusOr<std::vector<MapFinding>> map = LoadFindingsFile(yaml);
  ASSERT_TRUE(map.ok()) << map.status().message();
  EXPECT_EQ(map->size(), d->findings.size());

  const std::string md = (dir / "r.md").string();
  ASSERT_EQ(RunArgs({"diagnose", "--trace", kNccl, "--output", md}).code, 0);
  std::ifstream in(md);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(text.rfind("# Diagnosis", 0), 0u);
  fs::remove_all(dir);
}

TEST(DiagnoseCommandTest, BothFlagSpellingsAndDirectedProblem) {
  Result a = RunArgs({"diagnose", "--trace", kH100, "--json", "--time_range", "0ms:3ms", "--problem", "high_p99_latency"});
  Result b = RunArgs({"diagnose", "--trace", kH100, "--json", "--time-range=0ms:3ms", "--problem=high_p99_latency"});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out);
  nlohmann::json doc = nlohmann::json::parse(a.out);
  EXPECT_EQ(doc["problem"], "high_p99_latency");
  // The trace may be given without --trace, as summary, info and query take it.
  Result c = RunArgs({"diagnose", kH100, "--json", "--time_range", "0ms:3ms", "--problem", "high_p99_latency"});
  ASSERT_EQ(c.code, 0) << c.err;
  EXPECT_EQ(a.out, c.out);
  Result t = RunArgs({"diagnose", "--trace", kH100, "--json", "--threshold", "p99>2.0ms"});
  ASSERT_EQ(t.code, 0) << t.err;
  EXPECT_EQ(nlohmann::json::parse(t.out)["threshold"], "p99>2.0ms");
}

TEST(DiagnoseCommandTest, BadInputExitsTwoAndNamesTheCulprit) {
  fs::path dir = TestDir("diagnose");
  Result missing = RunArgs({"diagnose", "--trace", (dir / "nope.json").string()});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("nope.json"), std::string::npos) << missing.err;
  Result problem = RunArgs({"diagnose", "--trace", kH100, "--problem", "slow"});
  EXPECT_EQ(problem.code, 2);
  EXPECT_NE(problem.err.find("--problem"), std::string::npos) << problem.err;
  Result threshold = RunArgs({"diagnose", "--trace", kH100, "--threshold", "p77>2"});
  EXPECT_EQ(threshold.code, 2);
  EXPECT_NE(threshold.err.find("--threshold"), std::string::npos) << threshold.err;
  const std::string out = (dir / "r.txt").string();
  Result ext = RunArgs({"diagnose", "--trace", kH100, "--output", out});
  EXPECT_EQ(ext.code, 2);
  EXPECT_FALSE(fs::exists(out));
  std::ofstream(dir / "bad.json") << "{\"traceEvents\": [";
  const std::string report = (dir / "r.yaml").string();
  Result bad = RunArgs({"diagnose", "--trace", (dir / "bad.json").string(), "--output", report});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("bad.json"), std::string::npos) << bad.err;
  EXPECT_FALSE(fs::exists(report));
  fs::remove_all(dir);
}

TEST(DiagnoseCommandTest, TheBinaryWritesTheReport) {
  fs::path dir = TestDir("diagnose");
  const std::string report = (dir / "r.yaml").string();
  const std::string cmd = std::string(CPROF_BINARY_DIR) + "/cann-profiler diagnose --trace " + kNccl +
                          " --output " + report + " >" + (dir / "out").string() + " 2>&1";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0);
  StatusOr<Diagnosis> d = LoadDiagnosis(report);
  ASSERT_TRUE(d.ok()) << d.status().message();
  EXPECT_FALSE(d->findings.empty());
  const std::string bad = std::string(CPROF_BINARY_DIR) + "/cann-profiler diagnose --trace " + (dir / "x.json").string() +
                          " >/dev/null 2>&1";
  const int s2 = std::system(bad.c_str());
  EXPECT_EQ(WEXITSTATUS(s2), 2);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof::cli
