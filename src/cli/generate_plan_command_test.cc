// `generate-plan` in-process on a real diagnosis (diagnose on a Kineto fixture): Markdown and JSON,
// the steps' order and gains against the report's numbers, risk filtering, bad input (exit 2,
// the file named).
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"
#include "cli/cli_test_util.h"

namespace cprof::cli {
namespace {

namespace fs = std::filesystem;

const std::string kNccl = std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/nccl_parser_config/nccl_data.json.gz";

using namespace cli_test;

TEST(GeneratePlanCommandTest, PlanFromARealDiagnosis) {
  const fs::path dir = TestDir("plan");
  const std::string report = (dir / "report.json").string();
  Result diag = RunArgs({"diagnose", "--trace", kNccl, "--output", report});
  ASSERT_EQ(diag.code, 0) << diag.err;
  const nlohmann::json d = nlohmann::json::parse(ReadFile(report));
  ASSERT_FALSE(d["findings"].empty());

  Result r = RunArgs({"generate-plan", "--diagnosis", report, "--priority", "throughput_first", "--risk_tolerance",
                      "high", "--min_confidence", "0", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json plan = nlohmann::json::parse(r.out);
  EXPECT_EQ(plan["kind"], "optimization_plan");
  EXPECT_EQ(plan["device"], "gpu");
  EXPECT_EQ(plan["framework"], "pytorch");
  // Every finding is planned (tolerance high, no confidence floor), each gain from its numbers.
  ASSERT_EQ(plan["steps"].size(), d["findings"].size());
  const int64_t steps = d["steps"]["count"].get<int64_t>();
  const int64_t step_ns = d["steps"]["mean_ns"].get<int64_t>();
  EXPECT_EQ(plan["step_ns"].get<int64_t>(), step_ns);
  bool seen_other_tier = false;
  for (const auto& s : plan["steps"]) {
    const auto f = std::find_if(d["findings"].begin(), d["findings"].end(),
                                [&](const nlohmann::json& x) { return x["id"] == s["finding"]; });
    ASSERT_NE(f, d["findings"].end());
    const double c = (*f)["confidence"].get<double>();
    const double per_step =
        std::min<double>(static_cast<double>((*f)["saving_ns"].get<int64_t>() / steps), static_cast<double>(step_ns));
    EXPECT_NEAR(s["gain"]["low_ns"].get<double>(), per_step * c / 2, 1.0) << s["category"];
    EXPECT_NEAR(s["gain"]["high_ns"].get<double>(), per_step * (1 + c) / 2, 1.0) << s["category"];
    EXPECT_LE(s["gain"]["low_pct"].get<double>(), s["gain"]["high_pct"].get<double>());
    // The priority's tier comes first.
    if (!s["serves_priority"].get<bool>()) seen_other_tier = true;
    else EXPECT_FALSE(seen_other_tier) << "a throughput step after a non-throughput one";
    const std::string cmd = s["validate_command"];
    EXPECT_EQ(cmd.rfind("cann-profiler validate --before " + kNccl + " --after ", 0), 0u) << cmd;
    EXPECT_NE(cmd.find("--metrics throughput,step_time"), std::string::npos);
    EXPECT_FALSE(s["changes"].empty());
  }

  // Markdown to a file; stdout lists the steps.
  const std::string md_path = (dir / "optimization_plan.md").string();
  Result md = RunArgs({"generate-plan", "--diagnosis", report, "--priority", "latency_first", "--risk_tolerance", "low",
                       "--output", md_path});
  ASSERT_EQ(md.code, 0) << md.err;
  EXPECT_NE(md.out.find("plan: " + md_path), std::string::npos) << md.out;
  const std::string text = ReadFile(md_path);
  EXPECT_EQ(text.rfind("# Optimization plan\n", 0), 0u);
  EXPECT_NE(text.find("priority: **latency_first**; risk tolerance: **low**"), std::string::npos);
  // Low tolerance: every planned step is low risk; the rest are listed as not in the plan.
  const nlohmann::json low = nlohmann::json::parse(
      RunArgs({"generate-plan", "--diagnosis", report, "--risk_tolerance", "low", "--json"}).out);
  for (const auto& s : low["steps"]) EXPECT_EQ(s["risk"], "low");
  EXPECT_EQ(low["steps"].size() + low["deferred"].size(), d["findings"].size());
  fs::remove_all(dir);
}

TEST(GeneratePlanCommandTest, BadInputIsExitTwoNamingTheFile) {
  const fs::path dir = TestDir("plan");
  Result missing = RunArgs({"generate-plan", "--diagnosis", (dir / "nope.yaml").string()});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("nope.yaml: cannot open the diagnosis report: No such file or directory"),
            std::string::npos)
      << missing.err;
  const fs::path bad = dir / "bad.yaml";
  std::ofstream(bad) << "findings:\n  - category: not_a_category\n";
  Result malformed = RunArgs({"generate-plan", "--diagnosis", bad.string()});
  EXPECT_EQ(malformed.code, 2);
  EXPECT_NE(malformed.err.find("bad.yaml"), std::string::npos) << malformed.err;
  Result priority = RunArgs({"generate-plan", "--diagnosis", bad.string(), "--priority", "fastest"});
  EXPECT_EQ(priority.code, 2);
  EXPECT_NE(priority.err.find("--priority"), std::string::npos);
  Result risk = RunArgs({"generate-plan", "--diagnosis", bad.string(), "--risk_tolerance", "yolo"});
  EXPECT_EQ(risk.code, 2);
  fs::remove_all(dir);
}

// A trace given where the report belongs is named as a trace, for generate-plan and visualize.
// A YAML report cut short still parses, as a report with fewer findings or one without its savings:
// diagnose ends it with YAML's document end, and a copy without it is refused.
TEST(GeneratePlanCommandTest, AReportCutShortIsRefused) {
  const fs::path dir = TestDir("plan");
  const std::string full = (dir / "full.yaml").string();
  ASSERT_EQ(RunArgs({"diagnose", "--trace", kNccl, "--output", full}).code, 0);
  const std::string text = ReadFile(full);
  ASSERT_TRUE(text.ends_with("\n...\n")) << text.substr(text.size() - 40);
  EXPECT_EQ(RunArgs({"generate-plan", "--diagnosis", full, "-o", (dir / "plan.md").string()}).code, 0);
  // Cut at every tenth line: each is refused, naming the file.
  size_t lines = 0, refused = 0;
  for (size_t pos = text.find('\n'); pos != std::string::npos && pos + 1 < text.size(); pos = text.find('\n', pos + 1)) {
    if (++lines % 10 != 0) continue;
    const fs::path cut = dir / "cut.yaml";
    std::ofstream(cut, std::ios::trunc) << text.substr(0, pos + 1);
    Result r = RunArgs({"generate-plan", "--diagnosis", cut.string()});
    EXPECT_EQ(r.code, 2) << "cut after line " << lines;
    if (r.err.find("cut.yaml: the report is cut short") != std::string::npos) ++refused;
  }
  EXPECT_GT(lines, 100u);
  EXPECT_EQ(refused, lines / 10);
  // A hand-written report (no header) needs no end line.
  const fs::path hand = dir / "hand.yaml";
  std::ofstream(hand) << "findings:\n  - {category: device_idle, title: idle, confidence: 0.8}\n";
  EXPECT_EQ(RunArgs({"generate-plan", "--diagnosis", hand.string(), "-o", (dir / "hand.md").string()}).code, 0);
  fs::remove_all(dir);
}

TEST(GeneratePlanCommandTest, ATraceInsteadOfAReportSaysSo) {
  const fs::path dir = TestDir("plan");
  const std::string pb = (dir / "run.pb").string(), json = (dir / "run.json").string();
  ASSERT_EQ(RunArgs({"convert", kNccl, pb}).code, 0);
  ASSERT_EQ(RunArgs({"convert", kNccl, json}).code, 0);
  const std::pair<std::string, std::string> kCases[] = {
      {pb, "is a trace (Perfetto protobuf)"},
      {kNccl, "is a gzip'd file (a compressed trace)"},
      {json, "is a trace (Chrome/Kineto JSON)"},
      {dir.string(), "is a folder"}};
  for (const auto& [path, kind] : kCases) {
    Result r = RunArgs({"generate-plan", "--diagnosis", path});
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(path + " " + kind + ", not a diagnosis report; run `cann-profiler diagnose"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("escape"), std::string::npos) << r.err;
  }
  Result v = RunArgs({"visualize", "--trace", kNccl, "--diagnosis", pb, "-o", (dir / "map.html").string()});
  EXPECT_EQ(v.code, 2);
  EXPECT_NE(v.err.find("is a trace (Perfetto protobuf), not a diagnosis report"), std::string::npos) << v.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof::cli
