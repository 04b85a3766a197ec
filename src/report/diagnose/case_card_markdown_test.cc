// Case cards: Markdown with front matter and back, the library folder, and citing similar cases.
#include "report/diagnose/case_card_markdown.h"

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <gtest/gtest.h>

#include "report/diagnose/case_library.h"
#include "report/diagnose/runtime_adjustment_yaml.h"

namespace cprof {
namespace {

namespace fs = std::filesystem;

EvidenceEvent Ev(const std::string& name) {
  EvidenceEvent e;
  e.name = name;
  return e;
}

CaseCard SampleCard() {
  Diagnosis d;
  d.device = DeviceKind::kGpu;
  d.span_ns = 1'000'000'000;
  d.step_count = 4;
  d.step_mean_ns = 250'000'000;
  d.trace_path = "base.json.gz";
  Finding f;
  f.category = Category::kHostDeviceSync;
  f.title = "loss.item() blocks 12 ms per step";
  f.device = "gpu";
  f.confidence = 0.9;
  f.saving_ns = 48'000'000;
  f.metrics = {{"sync_ns_per_step", 12e6, "ns"}};
  f.events = {Ev("aten::item"), Ev("cudaStreamSynchronize")};
  f.suggestions = {{"Read the loss every 50 steps.", "code", "if step % 50 == 0: print(loss.item())"}};
  d.findings = {f};
  MeasuredGain g{.metric = "step_time", .unit = "ns", .before = 250e6, .after = 238e6, .change_pct = -4.8,
                 .ci_low_pct = -6.1, .ci_high_pct = -3.2, .p_value = 0.0012, .verdict = "improved",
                 .before_path = "base.json.gz", .after_path = "fixed.json.gz"};
  return BuildCaseCard(d, "", g);
}

TEST(CaseCardMarkdownTest, RoundTrip) {
  const CaseCard c = SampleCard();
  const std::string md = CaseCardToMarkdown(c, 1);
  EXPECT_EQ(md.rfind("---\nschema_version: 1\nkind: case_card\n", 0), 0u) << md.substr(0, 200);
  EXPECT_NE(md.find("## Measured gain\n\nstep_time: 250.000 ms -> 238.000 ms (-4.8%, 95% interval -6.1% to -3.2%, "
                    "p = 0.0012): **improved**"),
            std::string::npos)
      << md;
  StatusOr<CaseCard> back = ParseCaseCard(md, "x.md");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back->id, c.id);
  EXPECT_EQ(back->title, c.title);
  EXPECT_EQ(back->categories, c.categories);
  EXPECT_EQ(back->fingerprint, c.fingerprint);
  EXPECT_EQ(back->key_metrics, c.key_metrics);
  EXPECT_EQ(back->top_ops, c.top_ops);
  EXPECT_EQ(back->problem, c.problem);
  EXPECT_EQ(back->root_cause, c.root_cause);
  ASSERT_TRUE(back->measured.has_value());
  EXPECT_DOUBLE_EQ(back->measured->p_value, 0.0012);
  EXPECT_EQ(back->measured->verdict, "improved");
  EXPECT_FALSE(ParseCaseCard("# just markdown\n", "y.md").ok());
  StatusOr<CaseCard> bad = ParseCaseCard("---\nkind: case_card\ncategories: []\n---\n", "z.md");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("z.md"), std::string::npos);
}

TEST(CaseLibraryTest, SaveLoadAndCite) {
  const fs::path dir = fs::temp_directory_path() / ("cprof_cases_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  const CaseCard c = SampleCard();
  StatusOr<std::string> path = SaveCaseCard(c, dir.string(), 1);
  ASSERT_TRUE(path.ok()) << path.status().message();
  std::ofstream(dir / "broken.md") << "no front matter\n";
  std::vector<std::string> skipped;
  StatusOr<std::vector<CaseCard>> cards = LoadCaseLibrary(dir.string(), &skipped);
  ASSERT_TRUE(cards.ok());
  ASSERT_EQ(cards->size(), 1u);
  EXPECT_EQ((*cards)[0].path, *path);
  EXPECT_EQ(skipped.size(), 1u);
  // A new diagnosis with the same problem cites the case.
  Diagnosis d;
  d.span_ns = 1'000'000'000;
  Finding f;
  f.category = Category::kHostDeviceSync;
  f.device = "gpu";
  f.saving_ns = 40'000'000;
  f.metrics = {{"sync_ns_per_step", 10e6, "ns"}};
  f.events = {Ev("aten::item")};
  d.findings = {f};
  ASSERT_TRUE(CiteSimilarCases(dir.string(), &d).ok());
  bool cited = false;
  for (const std::string& n : d.notes) cited |= n.find("F1 resembles case " + c.id) != std::string::npos;
  EXPECT_TRUE(cited);
  ASSERT_EQ(d.findings[0].suggestions.size(), 1u);
  EXPECT_NE(d.findings[0].suggestions[0].text.find("Read the loss every 50 steps."), std::string::npos);
  EXPECT_EQ(d.findings[0].suggestions[0].snippet, *path);
  EXPECT_EQ(CiteSimilarCases((dir / "missing").string(), &d).code(), StatusCode::kNotFound);
  fs::remove_all(dir);
}

TEST(RuntimeAdjustmentYamlTest, RoundTripKeepsTypesAndReasons) {
  RuntimeAdjustment a;
  a.producer = "recommend-runtime";
  a.trace = "t.json";
  a.content_hash = 0xabcdef;
  a.device = "cpu";
  a.Set(RuntimeSection::kThreads, "intra_op", "4", "4 cores");
  a.Set(RuntimeSection::kEnv, "OMP_NUM_THREADS", "4", "follows intra_op");
  a.Set(RuntimeSection::kBatch, "pin_memory", "false", "cpu");
  a.notes.push_back("n");
  const nlohmann::ordered_json j = RuntimeAdjustmentToJson(a, 1);
  EXPECT_TRUE(j["threads"]["intra_op"]["value"].is_number_integer());
  EXPECT_TRUE(j["env"]["OMP_NUM_THREADS"]["value"].is_string());  // environment values stay strings
  EXPECT_TRUE(j["batch"]["pin_memory"]["value"].is_boolean());
  EXPECT_TRUE(j["allocator"].is_object() && j["allocator"].empty());  // every section present
  const std::string yaml = RuntimeAdjustmentToYaml(a, 1);
  StatusOr<RuntimeAdjustment> back = ParseRuntimeAdjustment(yaml, "r.yaml");
  ASSERT_TRUE(back.ok()) << back.status().message() << "\n" << yaml;
  EXPECT_EQ(back->content_hash, 0xabcdefu);
  ASSERT_EQ(back->settings.size(), 3u);
  EXPECT_EQ(back->Find(RuntimeSection::kEnv, "OMP_NUM_THREADS")->value, "4");
  EXPECT_EQ(back->Find(RuntimeSection::kThreads, "intra_op")->reason, "4 cores");
  EXPECT_FALSE(ParseRuntimeAdjustment("kind: diagnosis\n", "d.yaml").ok());
}

}  // namespace
}  // namespace cprof
