// Case cards from a diagnosis and the similarity of new findings to them.
#include "analysis/diagnose/case_match.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

Finding LayoutFinding(double ratio, std::vector<std::string> ops) {
  Finding f;
  f.category = Category::kLayoutConversion;
  f.title = "TransData takes 31% of device time";
  f.device = "npu";
  f.confidence = 0.8;
  f.saving_ns = 200'000'000;
  f.metrics = {{"layout_time_fraction", ratio, "ratio"}, {"conversions", 1200, "count"}};
  for (const std::string& o : ops) {
    EvidenceEvent e;
    e.name = o;
    f.events.push_back(e);
  }
  f.suggestions = {{"Keep the private format.", "code", "torch.npu.config.allow_internal_format = True"}};
  return f;
}

Diagnosis LayoutDiagnosis(double ratio, std::vector<std::string> ops) {
  Diagnosis d;
  d.device = DeviceKind::kNpu;
  d.span_ns = 1'000'000'000;
  d.step_count = 10;
  d.step_mean_ns = 100'000'000;
  d.content_hash = 0x1234;
  d.findings.push_back(LayoutFinding(ratio, std::move(ops)));
  Finding weak;
  weak.category = Category::kGc;
  weak.confidence = 0.2;  // below 0.5: not part of the card
  weak.device = "npu";
  weak.saving_ns = 10'000'000;
  d.findings.push_back(weak);
  return d;
}

TEST(CaseCardTest, CardHoldsCategoriesMetricsOpsAndFingerprint) {
  CaseCard c = BuildCaseCard(LayoutDiagnosis(0.31, {"TransData", "Cast"}), "", std::nullopt);
  EXPECT_EQ(c.categories, std::vector<std::string>{"layout_conversion"});
  EXPECT_EQ(c.device, "npu");
  EXPECT_DOUBLE_EQ(c.key_metrics.at("layout_conversion.layout_time_fraction"), 0.31);
  EXPECT_DOUBLE_EQ(c.key_metrics.at("layout_conversion.saving_fraction"), 0.2);
  EXPECT_EQ(c.top_ops, (std::vector<std::string>{"TransData", "Cast"}));
  EXPECT_EQ(c.id.rfind("layout_conversion-", 0), 0u);
  EXPECT_EQ(c.id.size(), std::string("layout_conversion-").size() + 8);
  EXPECT_NE(c.fix.find("allow_internal_format"), std::string::npos);  // the suggestions, without --solution
  EXPECT_NE(c.risks.find("medium"), std::string::npos);
  // Same categories, device and ops in another order: same fingerprint; other ops: another one.
  EXPECT_EQ(c.fingerprint, CaseFingerprint({"layout_conversion"}, "npu", {"Cast", "TransData"}));
  EXPECT_NE(c.fingerprint, CaseFingerprint({"layout_conversion"}, "npu", {"Cast"}));
  EXPECT_EQ(BuildCaseCard(LayoutDiagnosis(0.31, {}), "used NHWC everywhere", std::nullopt).fix, "used NHWC everywhere");
}

TEST(CaseMatchTest, SimilarityFollowsTheDocumentedFormula) {
  const CaseCard card = BuildCaseCard(LayoutDiagnosis(0.31, {"TransData", "Cast"}), "", std::nullopt);
  // The same finding: cosine 1, jaccard 1, same device.
  const Diagnosis same = LayoutDiagnosis(0.31, {"TransData", "Cast"});
  EXPECT_NEAR(CaseSimilarity(same.findings[0], same.span_ns, card), 1.0, 1e-9);
  // Other ops, another device: 0.4 + 0.3 * cosine (1 here: same metrics) + 0 + 0.
  Finding other = LayoutFinding(0.31, {"Transpose"});
  other.device = "gpu";
  EXPECT_NEAR(CaseSimilarity(other, same.span_ns, card), 0.7, 1e-9);
  // Half the ops in common: jaccard 1/3.
  Finding half = LayoutFinding(0.31, {"TransData", "Transpose"});
  EXPECT_NEAR(CaseSimilarity(half, same.span_ns, card), 0.4 + 0.3 + 0.2 / 3 + 0.1, 1e-9);
  // Another category never matches.
  Finding gc = LayoutFinding(0.31, {"TransData", "Cast"});
  gc.category = Category::kGc;
  EXPECT_EQ(CaseSimilarity(gc, same.span_ns, card), 0.0);
  // Different magnitudes lower the cosine.
  Finding smaller = LayoutFinding(0.31, {"TransData", "Cast"});
  smaller.metrics[1].value = 3;  // 3 conversions instead of 1200
  const double s = CaseSimilarity(smaller, same.span_ns, card);
  EXPECT_LT(s, 1.0);
  EXPECT_GT(s, 0.7);
}

TEST(CaseMatchTest, MatchCasesKeepsTheBestAboveTheThreshold) {
  std::vector<CaseCard> cards = {BuildCaseCard(LayoutDiagnosis(0.31, {"TransData"}), "", std::nullopt),
                                 BuildCaseCard(LayoutDiagnosis(0.31, {"TransData", "Cast"}), "", std::nullopt)};
  cards[0].device = "gpu";
  const Diagnosis d = LayoutDiagnosis(0.31, {"TransData", "Cast"});
  std::vector<CaseMatch> m = MatchCases(d, cards, 0.5);
  ASSERT_EQ(m.size(), 2u);
  EXPECT_EQ(m[0].card, 1u);  // the exact one first
  EXPECT_NEAR(m[0].similarity, 1.0, 1e-9);
  EXPECT_LT(m[1].similarity, m[0].similarity);
  EXPECT_TRUE(MatchCases(d, cards, 0.99).size() == 1);
}

TEST(CaseMatchTest, OnlyThePrimaryCategoryMatches) {
  Diagnosis d = LayoutDiagnosis(0.31, {"TransData"});
  d.findings[1].confidence = 0.9;  // gc joins the card as context
  const CaseCard layout_card = BuildCaseCard(d, "", std::nullopt);
  ASSERT_EQ(layout_card.categories, (std::vector<std::string>{"layout_conversion", "gc"}));
  EXPECT_EQ(CaseSimilarity(d.findings[1], d.span_ns, layout_card), 0.0);  // its fix was for the layout
  const CaseCard gc_card = BuildCaseCard(d, "", std::nullopt, /*primary=*/1);
  EXPECT_EQ(gc_card.categories.front(), "gc");
  EXPECT_GT(CaseSimilarity(d.findings[1], d.span_ns, gc_card), 0.5);
  EXPECT_EQ(CaseSimilarity(d.findings[0], d.span_ns, gc_card), 0.0);
}

}  // namespace
}  // namespace cprof
