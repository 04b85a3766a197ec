// affinity_api on synthetic traces: a per-parameter SGD loop, and a foreach optimizer.
#include "analysis/diagnose/rules/rule_test_util.h"

namespace cprof {
namespace {

using testing::RunRule;
using testing::SyntheticTrace;

TEST(AffinityApiRuleTest, PerParameterOptimizerLoopFires) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Op(t0, 600'000, "aten::mm");
    s.Op(t0 + 700'000, 250'000, "Optimizer.step#SGD.step", kNoCorrelation, "user_annotation");
    for (int p = 0; p < 40; ++p) {  // 40 parameters: mul_ (weight decay) and add_
      s.Op(t0 + 700'000 + p * 6'000, 2'500, "aten::mul_");
      s.Op(t0 + 703'000 + p * 6'000, 2'500, "aten::add_");
    }
  }
  std::vector<Finding> f = RunRule(*MakeAffinityApiRule(), s.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].category, Category::kAffinityApi);
  EXPECT_EQ(f[0].metrics[0].value, 4);
  EXPECT_EQ(f[0].metrics[1].value, 80);
  EXPECT_EQ(f[0].cost_per_step_ns, 250'000);
  EXPECT_NE(f[0].title.find("SGD"), std::string::npos) << f[0].title;
  EXPECT_NE(f[0].suggestions[0].snippet.find("torch.optim.SGD(model.parameters(), lr=lr, foreach=True)"),
            std::string::npos);
  EXPECT_EQ(f[0].events[0].name, "Optimizer.step#SGD.step");
}

TEST(AffinityApiRuleTest, ForeachOptimizerDoesNot) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Op(t0 + 700'000, 250'000, "Optimizer.step#SGD.step", kNoCorrelation, "user_annotation");
    s.Op(t0 + 700'000, 100'000, "aten::_foreach_add_");
    for (int p = 0; p < 40; ++p) s.Op(t0 + 800'000 + p * 3'000, 2'500, "aten::add_");
  }
  EXPECT_TRUE(RunRule(*MakeAffinityApiRule(), s.Finish()).empty());
}

}  // namespace
}  // namespace cprof

namespace cprof {
namespace {

using testing::RunRule;
using testing::SyntheticTrace;

TEST(AffinityApiRuleTest, HandWrittenUpdateLoopFiresAndACheapOneDoesNot) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    s.Op(t0, 500'000, "aten::mm");
    for (int p = 0; p < 30; ++p) {  // g = grad.add(p); buf.mul_(m).add_(g); p.add_(buf)
      const int64_t b = t0 + 500'000 + p * 16'000;
      s.Op(b, 3'000, "aten::add");
      s.Op(b + 4'000, 3'000, "aten::mul_");
      s.Op(b + 8'000, 3'000, "aten::add_");
      s.Op(b + 12'000, 3'000, "aten::add_");
    }
  }
  std::vector<Finding> f = RunRule(*MakeAffinityApiRule(), s.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].metrics[1].value, 120);  // ops per update loop
  EXPECT_EQ(f[0].metrics[4].value, 4);    // hand-written loops
  EXPECT_NEAR(f[0].metrics[3].value, 0.479, 1e-12);  // the loop spans 479 us of 1 ms
  EXPECT_NEAR(f[0].confidence_terms.specificity, 0.8, 1e-12);
  EXPECT_NE(f[0].title.find("hand-written"), std::string::npos) << f[0].title;

  SyntheticTrace cheap;  // the same loop at 1% of the step
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 10'000'000;
    cheap.Step(t0, 10'000'000, step);
    cheap.Op(t0, 9'000'000, "aten::mm");
    for (int p = 0; p < 20; ++p) cheap.Op(t0 + 9'000'000 + p * 6'000, 5'000, "aten::add_");
  }
  EXPECT_TRUE(RunRule(*MakeAffinityApiRule(), cheap.Finish()).empty());
}

}  // namespace
}  // namespace cprof
