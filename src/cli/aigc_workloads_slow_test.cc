// The AIGC workloads (examples/aigc: <build>/examples/unet and gpt) run briefly with their poor
// default and their tuned flags: every output line parses, the summary has its fields, and the
// tuned configuration is faster by a margin — the planted problems are real.
//
// Robust on a shared machine: the configurations run interleaved (A B A B ...), each several
// times (5), and are compared by the median over runs of two per-step measures: process CPU time
// (`cpu_ms`, which other processes' load barely moves) with the full margin, and wall latency
// (`latency_ms`) with a smaller one. Both configurations use one intra-op thread, so a loaded
// machine slows them alike; what the second core adds is measured separately (README.md there).
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "tune/trial_runner.h"

namespace cprof::cli {
namespace {

struct RunSummary {
  double latency_ms = 0;
  double cpu_ms = 0;
};

// Runs the workload once; checks its step lines and summary line; returns the summary.
RunSummary RunWorkload(const std::string& exe, const std::vector<std::string>& flags, int steps,
                       const std::string& rate_key) {
  std::vector<std::string> argv = {exe};
  argv.insert(argv.end(), flags.begin(), flags.end());
  tune::ProcessResult r = tune::RunProcess(argv, {}, 600 * kNsPerS, "/tmp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  std::vector<nlohmann::json> parsed;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    EXPECT_TRUE(j.is_object()) << "not a JSON object: " << line;
    if (j.is_object()) parsed.push_back(j);
  }
  EXPECT_EQ(parsed.size(), static_cast<size_t>(steps + 1)) << r.out;
  if (parsed.size() != static_cast<size_t>(steps + 1)) return {};
  double min_step = 1e300;
  for (int s = 0; s < steps; ++s) {
    EXPECT_EQ(parsed[s]["step"], s);
    EXPECT_GT(parsed[s]["ms"].get<double>(), 0.0);
    min_step = std::min(min_step, parsed[s]["ms"].get<double>());
  }
  const nlohmann::json& sum = parsed.back();
  for (const char* key : {"latency_ms", "p99_ms", "cpu_ms", "mem_mb"}) {
    EXPECT_TRUE(sum.contains(key) && sum[key].is_number()) << key << " in " << sum.dump();
  }
  EXPECT_TRUE(sum.contains(rate_key) && sum[rate_key].get<double>() > 0) << sum.dump();
  EXPECT_GE(sum["p99_ms"].get<double>(), min_step);
  EXPECT_GE(sum["latency_ms"].get<double>(), min_step);
  EXPECT_GT(sum["mem_mb"].get<double>(), 10.0);
  return {sum["latency_ms"].get<double>(), sum["cpu_ms"].get<double>()};
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// Runs the default and every tuned candidate interleaved, kRepeats times each, and expects the
// best candidate (by median cpu_ms) to beat the default by the margins. Several candidates where
// the best value of a knob depends on the machine (unet's layout: channels_last won on the loaded
// host of README.md, contiguous on an idle AVX-512 Xeon), as a tuner would try them.
void ExpectTunedFaster(const std::string& name, const std::vector<std::string>& size_flags, int steps,
                       const std::vector<std::vector<std::string>>& candidates, const std::string& rate_key,
                       double cpu_margin, double wall_margin) {
  std::string exe = CPROF_BINARY_DIR "/examples/" + name;
  if (!std::filesystem::exists(exe)) GTEST_SKIP() << exe << " not built (needs libtorch-dev)";
  constexpr int kRepeats = 5;
  std::vector<double> base_cpu, base_wall;
  std::vector<std::vector<double>> tuned_cpu(candidates.size()), tuned_wall(candidates.size());
  for (int r = 0; r < kRepeats; ++r) {
    RunSummary b = RunWorkload(exe, size_flags, steps, rate_key);
    if (::testing::Test::HasFailure()) return;
    base_cpu.push_back(b.cpu_ms);
    base_wall.push_back(b.latency_ms);
    for (size_t c = 0; c < candidates.size(); ++c) {
      std::vector<std::string> flags = size_flags;
      flags.insert(flags.end(), candidates[c].begin(), candidates[c].end());
      RunSummary t = RunWorkload(exe, flags, steps, rate_key);
      if (::testing::Test::HasFailure()) return;
      tuned_cpu[c].push_back(t.cpu_ms);
      tuned_wall[c].push_back(t.latency_ms);
    }
  }
  size_t best = 0;
  for (size_t c = 1; c < candidates.size(); ++c) {
    if (Median(tuned_cpu[c]) < Median(tuned_cpu[best])) best = c;
  }
  std::string best_flags;
  for (const std::string& f : candidates[best]) best_flags += " " + f;
  double cpu_ratio = Median(base_cpu) / Median(tuned_cpu[best]);
  double wall_ratio = Median(base_wall) / Median(tuned_wall[best]);
  ::testing::Test::RecordProperty("best_candidate", best_flags);
  ::testing::Test::RecordProperty("cpu_speedup", std::to_string(cpu_ratio));
  ::testing::Test::RecordProperty("wall_speedup", std::to_string(wall_ratio));
  EXPECT_GE(cpu_ratio, cpu_margin) << name << " default cpu_ms median " << Median(base_cpu) << " vs tuned ("
                                   << best_flags << ") " << Median(tuned_cpu[best]);
  EXPECT_GE(wall_ratio, wall_margin) << name << " default latency_ms median " << Median(base_wall)
                                     << " vs tuned (" << best_flags << ") " << Median(tuned_wall[best]);
}

// Layout and fusion alone gained 1.08x in cpu_ms on a clean CI machine (contiguous), 1.12-1.25x
// here; the heap knob adds 1.05-1.13x. Tuned with all three: 1.16-1.29x here. The margin of 1.05
// is what a null effect (1.00, the median's spread 2-3%) fails.
TEST(AigcWorkloadsTest, UnetTunedLayoutFusionAndHeapBeatTheDefault) {
  ExpectTunedFaster("unet", {"--steps", "10"}, 10,
                    {{"--memory_format", "channels_last", "--fused_conv", "1", "--heap", "keep"},
                     {"--memory_format", "contiguous", "--fused_conv", "1", "--heap", "keep"}},
                    "images_per_s", 1.05, 1.03);
}

TEST(AigcWorkloadsTest, GptTunedLinearCacheAndAttentionBeatTheDefault) {
  ExpectTunedFaster("gpt", {"--max_tokens", "16"}, 16,
                    {{"--linear", "onednn", "--kv_cache", "prealloc", "--attention", "fused"}}, "tokens_per_s",
                    1.5, 1.2);
}

}  // namespace
}  // namespace cprof::cli
