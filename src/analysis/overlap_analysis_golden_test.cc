// Golden: the Ascend Overlap Analysis per-step sums of both ranks of the torch_npu fixture match
// the step_trace_time.csv torch_npu wrote beside trace_view.json (read from the CSV).
#include <cmath>
#include <cstdio>
#include <string>

#include <gtest/gtest.h>

#include "analysis/golden_csv.h"
#include "analysis/gpu_timeline.h"
#include "analysis/overlap_analysis.h"
#include "analysis/step_detector.h"
#include "import/import_trace.h"

namespace cprof {
namespace {

class OverlapAnalysisGoldenTest : public ::testing::TestWithParam<int> {};

int64_t CsvUsToNs(const std::string& s) { return std::llround(std::stod(s) * 1000.0); }

TEST_P(OverlapAnalysisGoldenTest, MatchesStepTraceTimeCsv) {
  const std::string dir = std::string(CPROF_FIXTURES_DIR) + "/ascend/text_level1/rank" + std::to_string(GetParam()) +
                          "_ascend_pt/ASCEND_PROFILER_OUTPUT/";
  StatusOr<Trace> trace = ImportTrace(dir + "trace_view.json");
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  std::vector<Step> steps = DetectSteps(*trace);
  std::vector<StepTraceTime> rows = ComputeStepTraceTime(*trace, steps);

  std::vector<testing::CsvRow> golden = testing::ReadCsv(dir + "step_trace_time.csv");
  ASSERT_FALSE(golden.empty());
  ASSERT_EQ(rows.size(), golden.size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const StepTraceTime& r = rows[i];
    const testing::CsvRow& g = golden[i];
    EXPECT_EQ(r.step_id, std::stoll(g.at("Step")));
    // Sums of slice durations: exact to the ns.
    const std::pair<const char*, int64_t> exact[] = {
        {"Computing", r.computing_ns},
        {"Communication(Not Overlapped)", r.comm_not_overlapped_ns},
        {"Overlapped", r.overlapped_ns},
        {"Communication", r.communication_ns},
        {"Free", r.free_ns},
        {"Bubble", r.bubble_ns},
        {"Communication(Not Overlapped and Exclude Receive)", r.comm_not_overlapped_excl_receive_ns}};
    for (const auto& [column, ns] : exact) {
      std::printf("  rank%d step %lld %-50s ours %.3f us  csv %s\n", GetParam(), static_cast<long long>(r.step_id),
                  column, static_cast<double>(ns) / 1e3, g.at(column).c_str());
      EXPECT_NEAR(ns, CsvUsToNs(g.at(column)), 1) << column;
    }
    // Stage and Preparing: torch_npu subtracts absolute float64 us timestamps (0.25 us apart at
    // this epoch); ours are exact, so allow that quantisation.
    const std::pair<const char*, int64_t> quantised[] = {{"Stage", r.stage_ns}, {"Preparing", r.preparing_ns}};
    for (const auto& [column, ns] : quantised) {
      std::printf("  rank%d step %lld %-50s ours %.3f us  csv %s\n", GetParam(), static_cast<long long>(r.step_id),
                  column, static_cast<double>(ns) / 1e3, g.at(column).c_str());
      EXPECT_NEAR(ns, CsvUsToNs(g.at(column)), 300) << column;
    }
  }

  // The generic NPU breakdown's computation is the union Overlap Analysis calls Computing.
  std::optional<GpuTimeline> tl = ComputeGpuTimeline(*trace);
  ASSERT_TRUE(tl.has_value());
  EXPECT_TRUE(tl->has_npu);
  int64_t computing = 0;
  for (const StepTraceTime& r : rows) computing += r.computing_ns;
  std::printf("  rank%d npu breakdown: computation %.3f us (Overlap Computing %.3f us), total comm %.3f us\n",
              GetParam(), tl->computation_ns / 1e3, computing / 1e3, tl->total_comm_ns / 1e3);
  EXPECT_NEAR(static_cast<double>(tl->computation_ns), static_cast<double>(computing), 0.005 * computing);
}

INSTANTIATE_TEST_SUITE_P(Ascend, OverlapAnalysisGoldenTest, ::testing::Values(0, 1),
                         [](const ::testing::TestParamInfo<int>& info) { return "rank" + std::to_string(info.param); });

}  // namespace
}  // namespace cprof
