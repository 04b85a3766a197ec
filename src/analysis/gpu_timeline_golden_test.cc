// Golden: our device-time breakdown of TraceLens' three test traces matches the gpu_timeline.csv
// TraceLens computed for them, within 0.5% of total time (read from the CSV, not hard-coded).
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "analysis/gpu_timeline.h"
#include "analysis/golden_csv.h"
#include "import/import_trace.h"

namespace cprof {
namespace {

struct GoldenCase {
  const char* trace;
  const char* csv;
};

class GpuTimelineGoldenTest : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(GpuTimelineGoldenTest, MatchesTraceLens) {
  const std::string dir = std::string(CPROF_FIXTURES_DIR) + "/kineto/tracelens/";
  StatusOr<Trace> trace = ImportTrace(dir + GetParam().trace);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::optional<GpuTimeline> t = ComputeGpuTimeline(*trace);
  ASSERT_TRUE(t.has_value());

  std::vector<testing::CsvRow> rows = testing::ReadCsv(dir + GetParam().csv);
  ASSERT_EQ(rows.size(), 8u);
  std::map<std::string, double> golden_ms;
  for (const auto& row : rows) golden_ms[row.at("type")] = std::stod(row.at("time ms"));
  const std::map<std::string, int64_t> ours_ns = {
      {"computation_time", t->computation_ns}, {"exposed_comm_time", t->exposed_comm_ns},
      {"exposed_memcpy_time", t->exposed_memcpy_ns}, {"busy_time", t->busy_ns},
      {"idle_time", t->idle_ns},                 {"total_time", t->total_ns},
      {"total_comm_time", t->total_comm_ns},     {"total_memcpy_time", t->total_memcpy_ns}};
  const double total_ms = golden_ms.at("total_time");
  ASSERT_GT(total_ms, 0);
  for (const auto& [name, ns] : ours_ns) {
    ASSERT_TRUE(golden_ms.count(name)) << name;
    double ours_ms = static_cast<double>(ns) / 1e6;
    double deviation = std::fabs(ours_ms - golden_ms.at(name)) / total_ms * 100;
    std::printf("  %-20s ours %.9f ms  TraceLens %.9f ms  deviation %.2e%% of total\n", name.c_str(), ours_ms,
                golden_ms.at(name), deviation);
    EXPECT_LE(deviation, 0.5) << name;
  }
  EXPECT_EQ(t->computation_ns + t->exposed_comm_ns + t->exposed_memcpy_ns + t->idle_ns, t->total_ns);
}

INSTANTIATE_TEST_SUITE_P(
    TraceLens, GpuTimelineGoldenTest,
    ::testing::Values(GoldenCase{"h100/gaunernst_bert-small-uncased__1016001.json.gz",
                                 "h100/gaunernst_bert-small-uncased__1016001_perf_report_csvs/gpu_timeline.csv"},
                      GoldenCase{"mi300/gaunernst_bert-small-uncased__1016001.json.gz",
                                 "mi300/gaunernst_bert-small-uncased__1016001_perf_report_csvs/gpu_timeline.csv"},
                      GoldenCase{"inference/sglang_decode/sglang_Qwen3-8B_decode.json.gz",
                                 "inference/sglang_decode/perf_csvs/gpu_timeline.csv"}),
    [](const ::testing::TestParamInfo<GoldenCase>& info) {
      std::string s = info.param.trace;
      return s.substr(0, s.find('/'));
    });

}  // namespace
}  // namespace cprof
