// diagnose on the AIGC gpt workload (examples/aigc/gpt), traced for real with the built
// `cann-profiler trace`: its default runs the projections on the reference BLAS, so the
// reference_blas finding (affinity_api) ranks first, names aten::addmm, and the space's fix for its
// category is --linear onednn; traced again with that fix, the finding is gone.
//
//   ctest -L slow -R AigcDiagnosis
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"

namespace cprof::cli {
namespace {

namespace fs = std::filesystem;

// Traces examples/aigc/gpt with `flags` and returns diagnose's JSON report.
nlohmann::json TraceAndDiagnose(const fs::path& dir, const std::string& name, const std::string& flags) {
  const std::string binary = CPROF_BINARY_DIR "/cann-profiler";
  const fs::path pb = dir / (name + ".pb");
  const std::string cmd = binary + " trace --output " + pb.string() + " -- " CPROF_BINARY_DIR "/examples/gpt " +
                          flags + " >" + (dir / (name + ".log")).string() + " 2>&1";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ostringstream out, err;
  EXPECT_EQ(RunCli({"diagnose", "--trace", pb.string(), "--format", "json"}, out, err), 0) << err.str();
  return nlohmann::json::parse(out.str(), nullptr, false);
}

TEST(AigcDiagnosisSlowTest, GptDefaultIsOnTheReferenceBlasAndOneDnnRemovesIt) {
  if (!fs::exists(CPROF_BINARY_DIR "/cann-profiler")) GTEST_SKIP() << "build the cann-profiler target first";
  if (!fs::exists(CPROF_BINARY_DIR "/examples/gpt")) GTEST_SKIP() << "examples/gpt not built (needs libtorch-dev)";
  // Debian's reference BLAS is /usr/lib/<arch>/blas/libblas.so.3.*; other alternatives (OpenBLAS, ATLAS) live elsewhere.
  if (std::system("readlink -f \"$(ldd " CPROF_BINARY_DIR "/examples/gpt | awk '/libblas.so.3 =>/ {print $3}')\" "
                  "| grep -q '/blas/libblas'") != 0)
    GTEST_SKIP() << "libtorch runs on an optimized BLAS here, not the reference one";
  const fs::path dir = fs::temp_directory_path() / ("cprof_aigc_diagnosis_" + std::to_string(::getpid()));
  fs::create_directories(dir);

  const nlohmann::json d = TraceAndDiagnose(dir, "default", "--max_tokens 16");
  ASSERT_TRUE(d.is_object() && d.contains("findings") && !d["findings"].empty()) << d.dump(2).substr(0, 2000);
  const nlohmann::json& top = d["findings"][0];
  EXPECT_EQ(top["category"], "affinity_api") << top.dump(2);
  EXPECT_EQ(top["rule"], "reference_blas") << top.dump(2);
  EXPECT_GT(top["confidence"].get<double>(), 0.5);
  EXPECT_GT(top["saving_ns"].get<int64_t>(), 0);
  const std::string title = top["title"];
  EXPECT_NE(title.find("aten::addmm"), std::string::npos) << title;
  std::printf("[ gpt default ] %s (confidence %.2f, saving %.0f ms)\n", title.c_str(), top["confidence"].get<double>(),
              top["saving_ns"].get<double>() / 1e6);

  // The fix the space names for affinity_api.
  const nlohmann::json fixed = TraceAndDiagnose(dir, "onednn", "--max_tokens 16 --linear onednn");
  ASSERT_TRUE(fixed.is_object() && fixed.contains("findings"));
  for (const nlohmann::json& f : fixed["findings"]) EXPECT_NE(f["rule"], "reference_blas") << f.dump(2);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof::cli
