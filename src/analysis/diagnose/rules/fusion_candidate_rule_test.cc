// fusion_candidate on synthetic traces: a GELU written out of elementwise ops, softmax, conv+bn+relu
// at inference (not in training), and a plain sequence that matches nothing.
#include "analysis/diagnose/rules/rule_test_util.h"

namespace cprof {
namespace {

using testing::RunRule;
using testing::SyntheticTrace;

void Ops(SyntheticTrace& s, int64_t t0, const std::vector<std::string_view>& names, int64_t each) {
  for (size_t i = 0; i < names.size(); ++i) s.Op(t0 + static_cast<int64_t>(i) * each, each - 1'000, names[i]);
}

TEST(FusionCandidateRuleTest, DecomposedGeluAndSoftmax) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 2'000'000;
    s.Step(t0, 2'000'000, step);
    Ops(s, t0, {"aten::linear"}, 300'000);
    // 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
    Ops(s, t0 + 300'000, {"aten::pow", "aten::mul", "aten::add", "aten::mul", "aten::tanh", "aten::add", "aten::mul",
                          "aten::mul"}, 20'000);
    Ops(s, t0 + 500'000, {"aten::linear"}, 300'000);
    Ops(s, t0 + 800'000, {"aten::amax", "aten::sub", "aten::exp", "aten::sum", "aten::div"}, 20'000);
  }
  std::vector<Finding> f = RunRule(*MakeFusionCandidateRule(), s.Finish());
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].category, Category::kFusionCandidate);
  EXPECT_EQ(f[0].metrics[0].name, "pattern:gelu_tanh");
  EXPECT_EQ(f[0].metrics[0].value, 4);
  EXPECT_EQ(f[0].metrics[1].value, 8);  // ops per match
  EXPECT_NE(f[0].title.find("approximate=\"tanh\""), std::string::npos) << f[0].title;
  EXPECT_EQ(f[0].events[0].name, "aten::pow");
  EXPECT_EQ(f[0].metrics[2].value, 4 * 8 * 19'000);
  EXPECT_EQ(f[0].saving_ns, 4 * 7 * 19'000);  // cost x (1 - 1/8)
  EXPECT_EQ(f[1].metrics[0].name, "pattern:softmax");
  EXPECT_EQ(f[1].metrics[1].value, 5);
}

TEST(FusionCandidateRuleTest, ConvBnReluOnlyAtInference) {
  SyntheticTrace eval;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    eval.Step(t0, 1'000'000, step);
    Ops(eval, t0, {"aten::conv2d", "aten::batch_norm", "aten::relu_", "aten::conv2d", "aten::batch_norm", "aten::relu_"},
        100'000);
  }
  std::vector<Finding> f = RunRule(*MakeFusionCandidateRule(), eval.Finish());
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].metrics[0].name, "pattern:conv_bn_act");
  EXPECT_EQ(f[0].metrics[0].value, 8);

  SyntheticTrace train;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    train.Step(t0, 1'000'000, step);
    Ops(train, t0, {"aten::conv2d", "aten::batch_norm", "aten::relu_", "ConvolutionBackward0"}, 100'000);
  }
  EXPECT_TRUE(RunRule(*MakeFusionCandidateRule(), train.Finish()).empty());
}

TEST(FusionCandidateRuleTest, OrdinaryOpsMatchNothing) {
  SyntheticTrace s;
  for (int step = 0; step < 4; ++step) {
    const int64_t t0 = step * 1'000'000;
    s.Step(t0, 1'000'000, step);
    Ops(s, t0, {"aten::linear", "aten::gelu", "aten::linear", "aten::softmax", "aten::layer_norm", "aten::add"}, 100'000);
  }
  EXPECT_TRUE(RunRule(*MakeFusionCandidateRule(), s.Finish()).empty());
}

}  // namespace
}  // namespace cprof
