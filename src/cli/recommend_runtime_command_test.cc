// `recommend-runtime` in-process on real traces (Kineto fixtures) and `tune --from_diagnosis`
// writing the same runtime_adjustment.yaml schema; bad input is exit 2 naming the file.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"
#include "cli/cli_test_util.h"
#include "report/diagnose/diagnosis_yaml.h"
#include "report/diagnose/runtime_adjustment_yaml.h"

namespace cprof::cli {
namespace {

namespace fs = std::filesystem;

const std::string kNccl = std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/nccl_parser_config/nccl_data.json.gz";
const std::string kPnpoly = CPROF_FIXTURES_DIR "/tuning/pnpoly_RTX_3090.json.gz";

using namespace cli_test;

TEST(RecommendRuntimeCommandTest, RealGpuTraceGivesTheSchema) {
  const fs::path dir = TestDir("runtime");
  const std::string out = (dir / "runtime_adjustment.yaml").string();
  Result r = RunArgs({"recommend-runtime", "--trace", kNccl, "--output", out});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("written: " + out), std::string::npos) << r.out;
  StatusOr<RuntimeAdjustment> a = ParseRuntimeAdjustment(ReadFile(out), out);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->producer, "recommend-runtime");
  EXPECT_EQ(a->device, "gpu");
  EXPECT_EQ(a->trace, kNccl);
  EXPECT_NE(a->content_hash, 0u);
  // A Kineto trace does not record the cores: nothing about threads, and the note says why.
  EXPECT_EQ(a->Find(RuntimeSection::kThreads, "intra_op"), nullptr);
  ASSERT_FALSE(a->notes.empty());
  EXPECT_NE(a->notes[0].find("cpu_cores"), std::string::npos);
  for (const RuntimeSetting& s : a->settings) EXPECT_FALSE(s.reason.empty()) << s.name;
  // The same as JSON on stdout; the diagnosis' findings are cited as F<n>.
  Result j = RunArgs({"recommend-runtime", "--trace", kNccl, "--json"});
  ASSERT_EQ(j.code, 0) << j.err;
  const nlohmann::json doc = nlohmann::json::parse(j.out);
  EXPECT_EQ(doc["kind"], "runtime_adjustment");
  for (const char* section : {"threads", "env", "allocator", "batch", "framework"})
    EXPECT_TRUE(doc[section].is_object()) << section;
  EXPECT_EQ(doc["source"]["content_hash"].get<std::string>().size(), 18u);
  fs::remove_all(dir);
}

TEST(RecommendRuntimeCommandTest, BadInputIsExitTwoNamingTheFile) {
  Result r = RunArgs({"recommend-runtime", "--trace", "/nonexistent/trace.json"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/trace.json"), std::string::npos) << r.err;
  Result f = RunArgs({"recommend-runtime", "--trace", kNccl, "--format", "md"});
  EXPECT_EQ(f.code, 2);
}

TEST(RecommendRuntimeCommandTest, TuneWritesTheSameSchema) {
  const fs::path dir = TestDir("runtime");
  Diagnosis d;
  d.device = DeviceKind::kNpu;
  d.trace_path = "rank0.json";
  d.content_hash = 0x42;
  Finding f;
  f.category = Category::kThreadOversubscription;
  f.title = "19 busy threads on 8 cores";
  f.confidence = 0.8;
  d.findings = {f};
  const fs::path report = dir / "report.yaml";
  std::ofstream(report) << DiagnosisToYaml(d, 1);
  const std::string out = (dir / "runtime_adjustment.yaml").string();
  Result r = RunArgs({"tune", "--replay", kPnpoly, "--budget", "5", "--seed", "1", "--quiet", "--json",
                      "--from_diagnosis", report.string(), "--runtime_adjustment", out});
  ASSERT_EQ(r.code, 0) << r.err;
  const nlohmann::json result = nlohmann::json::parse(r.out);
  StatusOr<RuntimeAdjustment> a = ParseRuntimeAdjustment(ReadFile(out), out);
  ASSERT_TRUE(a.ok()) << a.status().message();
  EXPECT_EQ(a->producer, "tune");
  EXPECT_EQ(a->device, "npu");
  EXPECT_EQ(a->trace, "rank0.json");
  EXPECT_EQ(a->content_hash, 0x42u);
  EXPECT_EQ(a->diagnosis, report.string());
  // Every best parameter of the replay space is in the file, with its value and how it was chosen.
  ASSERT_TRUE(result["best_params"].is_object());
  for (const auto& [name, value] : result["best_params"].items()) {
    const RuntimeSetting* s = a->Find(RuntimeSection::kFramework, name);
    ASSERT_NE(s, nullptr) << name;
    EXPECT_EQ(s->value, value.is_string() ? value.get<std::string>() : value.dump()) << name;
    EXPECT_NE(s->reason.find("best of 5 trials"), std::string::npos) << s->reason;
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof::cli
