// recommend-runtime on a real collector trace: examples/diagnose/thread_oversubscription.py
// traced with the built `cann-profiler trace` (Debian's python3-torch), then the runtime settings
// in-process: the pools are capped at the machine's cores and the oversubscription is cited.
//
//   ctest -L slow -R RecommendRuntimeSlow
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <thread>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"

namespace cprof::cli {
namespace {

namespace fs = std::filesystem;

TEST(RecommendRuntimeSlowTest, OversubscribedWorkloadGetsPoolsCappedAtTheCores) {
  const std::string binary = CPROF_BINARY_DIR "/cann-profiler";
  if (!fs::exists(binary)) GTEST_SKIP() << "build the cann-profiler target first";
  if (std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "/usr/bin/python3 cannot import torch (Debian package python3-torch)";
  const fs::path dir = fs::temp_directory_path() / ("cprof_runtime_slow_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path pb = dir / "oversub.pb";
  const std::string cmd = binary + " trace -o " + pb.string() + " -- /usr/bin/python3 " CPROF_SOURCE_DIR
                          "/examples/diagnose/thread_oversubscription.py --steps 12 >" + (dir / "log").string() +
                          " 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0);

  std::ostringstream out, err;
  ASSERT_EQ(RunCli({"recommend-runtime", "--trace", pb.string(), "--json"}, out, err), 0) << err.str();
  const nlohmann::json a = nlohmann::json::parse(out.str());
  EXPECT_EQ(a["device"], "cpu");
  ASSERT_TRUE(a["threads"].contains("intra_op")) << a.dump(2);  // the collector records the cores
  const int64_t intra = a["threads"]["intra_op"]["value"].get<int64_t>();
  const int64_t cores = std::thread::hardware_concurrency();
  EXPECT_GE(intra, 1);
  EXPECT_LE(intra, cores);  // the script asks for 8 intra-op threads
  EXPECT_EQ(a["env"]["OMP_NUM_THREADS"]["value"], std::to_string(intra));
  const std::string reason = a["threads"]["intra_op"]["reason"];
  EXPECT_NE(reason.find("intra-op pool 8"), std::string::npos) << reason;
  if (static_cast<int64_t>(cores) < 8) {  // oversubscribed on this machine: the finding is cited
    EXPECT_NE(reason.find("thread_oversubscription"), std::string::npos) << reason;
    EXPECT_TRUE(a["env"].contains("KMP_BLOCKTIME")) << a.dump(2);
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof::cli
