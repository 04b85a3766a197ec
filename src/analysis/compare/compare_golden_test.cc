// validate and compare on real traces: HTA's trace_diff control/test pair (PyTorch Kineto, GPU),
// where the test run has ~20x the memcpy of the control run and its steps got slower.
#include <gtest/gtest.h>

#include "analysis/compare/trace_diff.h"
#include "analysis/compare/validation.h"
#include "import/import_trace.h"
#include "stats/metric_registry.h"

namespace cprof {
namespace {

const std::string kControl = std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/trace_diff/control/control.json.gz";
const std::string kTest = std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/trace_diff/test/test.json.gz";

class HtaTraceDiff : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    StatusOr<Trace> c = ImportTrace(kControl);
    StatusOr<Trace> t = ImportTrace(kTest);
    ASSERT_TRUE(c.ok()) << c.status().message();
    ASSERT_TRUE(t.ok()) << t.status().message();
    control_ = new Trace(std::move(*c));
    test_ = new Trace(std::move(*t));
  }
  static void TearDownTestSuite() {
    delete control_;
    delete test_;
  }
  static Trace* control_;
  static Trace* test_;
};
Trace* HtaTraceDiff::control_ = nullptr;
Trace* HtaTraceDiff::test_ = nullptr;

TEST_F(HtaTraceDiff, CompareFindsTheMemcpyRegression) {
  const TraceDiff d = DiffTraces(*control_, *test_, {});
  ASSERT_EQ(d.baseline.steps.size(), 6u);
  ASSERT_EQ(d.target.steps.size(), 6u);
  ASSERT_TRUE(d.step_time.has_value());
  EXPECT_GT(d.step_time->change_pct, 20);  // median step 76.8 ms -> ~111 ms
  // Every test step is slower than every control step: the exact Mann-Whitney p is 2/924.
  EXPECT_NEAR(d.step_time->p_value, 2.0 / 924, 1e-12);

  // Device memcpy count: 228 -> 4856 (the two files' gpu_memcpy events).
  int64_t memcpy_base = 0, memcpy_target = 0;
  for (const OpDiff& op : d.ops) {
    if (!op.device || op.category != "gpu_memcpy") continue;
    memcpy_base += op.baseline.count;
    memcpy_target += op.target.count;
  }
  EXPECT_EQ(memcpy_base, 228);
  EXPECT_EQ(memcpy_target, 4856);
  bool memcpy_category = false;
  for (const CategoryDiff& c : d.categories) {
    if (c.category != "gpu_memcpy") continue;
    memcpy_category = true;
    EXPECT_GT(c.target_ns, 25 * c.baseline_ns / 10);  // 53.5 ms -> 159.7 ms
  }
  EXPECT_TRUE(memcpy_category);
  // The top regression: device-to-device copies, 18 -> 4645 of them.
  ASSERT_FALSE(d.top_regressions.empty());
  const OpDiff& top = d.ops[d.top_regressions[0]];
  EXPECT_EQ(top.name, "Memcpy DtoD (Device -> Device)");
  EXPECT_EQ(top.baseline.count, 18);
  EXPECT_EQ(top.target.count, 4645);
  EXPECT_TRUE(top.significant);
  EXPECT_GT(d.significant_ops, 10);
  EXPECT_GT(d.new_ops + d.vanished_ops, 0);
}

// The control ran on an A100 and the test on a V100 (ampere_* vs volta_* GEMM kernels): an op
// map that names both "sgemm" aligns them instead of listing them as vanished and new.
TEST_F(HtaTraceDiff, OpMapAlignsKernelsAcrossGpuGenerations) {
  const TraceDiff plain = DiffTraces(*control_, *test_, {});
  StatusOr<OpMap> map = OpMap::Parse("(ampere|volta)_sgemm_.* => sgemm\n", "gemm.map");
  ASSERT_TRUE(map.ok());
  TraceDiffOptions opt;
  opt.op_map = &*map;
  const TraceDiff mapped = DiffTraces(*control_, *test_, opt);
  EXPECT_LT(mapped.new_ops, plain.new_ops);
  EXPECT_LT(mapped.vanished_ops, plain.vanished_ops);
  bool found = false;
  for (const OpDiff& op : mapped.ops) {
    if (op.name != "sgemm" || !op.device) continue;
    found = true;
    EXPECT_EQ(op.presence, OpPresence::kBoth);
    EXPECT_GT(op.baseline_names.size() + op.target_names.size(), 2u);
  }
  EXPECT_TRUE(found);
}

TEST_F(HtaTraceDiff, ValidateCallsTheStepTimeRegression) {
  MachineCapabilities caps;
  caps.hardware_pmu = caps.procfs = true;
  MetricRegistry reg(caps);
  ValidateOptions opt;
  for (const char* m : {"step_time", "p50_latency", "throughput", "device_util"}) opt.metrics.push_back(**reg.Find(m));
  StatusOr<ValidationResult> r = Validate(RunSet{{control_}, {kControl}}, RunSet{{test_}, {kTest}}, opt);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->verdict, Verdict::kRegressed);
  EXPECT_EQ(r->metrics[0].verdict, Verdict::kRegressed);
  EXPECT_EQ(r->metrics[0].comparison.n_before, 6);
  // Six steps a side: Holm over 4 metrics, exact p = 2/924 each -> 4 * 2/924 < 0.05.
  EXPECT_LT(r->metrics[0].p_adjusted, 0.05);
  EXPECT_EQ(r->metrics[2].verdict, Verdict::kRegressed);  // throughput down
}

}  // namespace
}  // namespace cprof
