// A real tuning run: examples/tune/infer_bench.py (PyTorch CPU inference, threads x batch x memory
// format) tuned from its default configuration; the best found must beat the default.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <thread>

#include "tune/trial_runner.h"

namespace cprof::cli {
namespace {

TEST(TunePyTorchTest, ImprovesOnTheDefaultConfiguration) {
  tune::ProcessResult probe = tune::RunProcess({"/usr/bin/python3", "-c", "import torch"}, {}, 300 * kNsPerS, "/tmp");
  if (probe.exit_code != 0) GTEST_SKIP() << "/usr/bin/python3 cannot import torch (Debian package python3-torch)";
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("cprof_tune_torch_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  // The example's space, with as many threads as this machine has (at most 4).
  int cores = std::clamp(static_cast<int>(std::thread::hardware_concurrency()), 1, 4);
  std::ofstream(dir / "space.yaml")
      << "parameters:\n"
      << "  - {name: threads, type: int, low: 1, high: " << std::max(cores, 2) << ", default: 1}\n"
      << "  - {name: batch, type: ordinal, values: [1, 2, 4, 8, 16, 32], default: 1}\n"
      << "  - {name: memory_format, type: categorical, values: [contiguous, channels_last], default: contiguous}\n"
      << "env:\n  OMP_NUM_THREADS: \"{threads}\"\n";
  std::string script = CPROF_SOURCE_DIR "/examples/tune/infer_bench.py";
  tune::ProcessResult r = tune::RunProcess(
      {CPROF_BINARY_DIR "/cann-profiler", "tune", "--space", (dir / "space.yaml").string(), "--objective",
       "ms_per_image:min", "--budget", "8", "--seed", "1", "--storage", "sqlite://" + (dir / "study.db").string(),
       "--timeout", "300s", "--remeasure", "1", "--json", "--", "/usr/bin/python3", script, "--threads",
       "{threads}", "--batch", "{batch}", "--memory_format", "{memory_format}", "--images", "16"},
      {}, 1800 * kNsPerS, "/tmp");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  size_t end = r.out.find_last_not_of('\n');
  size_t start = r.out.rfind('\n', end);
  auto j = nlohmann::json::parse(r.out.substr(start == std::string::npos ? 0 : start + 1), nullptr, false);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["trials"], 8);
  ASSERT_TRUE(j["default_value"].is_number()) << "the default configuration runs first";
  ASSERT_TRUE(j["best_value"].is_number());
  EXPECT_LT(j["best_value"].get<double>(), j["default_value"].get<double>());
  EXPECT_GT(j["improvement_over_default"].get<double>(), 0.0);
  // The top configuration is re-measured, and the default (trial 0) with it unless it is the top.
  ASSERT_FALSE(j["remeasured"].empty());
  EXPECT_EQ(j["remeasured"].size(), j["remeasured"][0]["trial"] == 0 ? 1u : 2u) << j["remeasured"].dump();
  EXPECT_DOUBLE_EQ(j["default_value"].get<double>(), j["remeasured"].back()["mean"].get<double>());
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof::cli
