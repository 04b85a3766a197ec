// `case-card` in-process on a real diagnosis: the card in the library and at --output, the measured
// gain with validate's statistics, `diagnose --case_library` citing it; bad input is exit 2.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "cli/cli_app.h"
#include "cli/cli_test_util.h"
#include "report/diagnose/case_card_markdown.h"

namespace cprof::cli {
namespace {

namespace fs = std::filesystem;

const std::string kNccl = std::string(CPROF_FIXTURES_DIR) + "/kineto/hta/nccl_parser_config/nccl_data.json.gz";

using namespace cli_test;

TEST(CaseCardCommandTest, CardIsSavedMeasuredAndCitedByDiagnose) {
  const fs::path dir = TestDir("case");
  const std::string report = (dir / "report.yaml").string();
  ASSERT_EQ(RunArgs({"diagnose", "--trace", kNccl, "--output", report}).code, 0);
  const std::string library = (dir / "cases").string();
  const std::string card_path = (dir / "case.md").string();
  Result r = RunArgs({"case-card", "--diagnosis", report, "--solution", "prefetched batches on a side stream",
                      "--before", kNccl, "--after", kNccl, "--library", library, "--output", card_path});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("measured step_time: +0.0%"), std::string::npos) << r.out;
  StatusOr<CaseCard> card = ParseCaseCard(ReadFile(card_path), card_path);
  ASSERT_TRUE(card.ok()) << card.status().message();
  EXPECT_EQ(card->fix, "prefetched batches on a side stream");
  EXPECT_EQ(card->device, "gpu");
  ASSERT_TRUE(card->measured.has_value());
  EXPECT_EQ(card->measured->verdict, "unchanged");  // the same trace on both sides
  EXPECT_NEAR(card->measured->change_pct, 0.0, 1e-9);
  EXPECT_GT(card->measured->before, 0.0);
  EXPECT_TRUE(fs::exists(fs::path(library) / (card->id + ".md")));

  // The same trace diagnosed again finds its own case, with the highest similarity.
  Result again = RunArgs({"diagnose", "--trace", kNccl, "--case_library", library, "--json"});
  ASSERT_EQ(again.code, 0) << again.err;
  const nlohmann::json d = nlohmann::json::parse(again.out);
  bool cited = false;
  for (const auto& n : d["notes"]) {
    const std::string note = n;
    if (note.find("F1 resembles case " + card->id + " (similarity 1.00)") != std::string::npos) cited = true;
  }
  EXPECT_TRUE(cited) << d["notes"].dump();
  fs::remove_all(dir);
}

TEST(CaseCardCommandTest, BadInputIsExitTwoNamingTheFile) {
  const fs::path dir = TestDir("case");
  Result missing = RunArgs({"case-card", "--diagnosis", (dir / "none.yaml").string(), "--library", dir.string()});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("none.yaml"), std::string::npos) << missing.err;
  const std::string report = (dir / "report.yaml").string();
  ASSERT_EQ(RunArgs({"diagnose", "--trace", kNccl, "--output", report}).code, 0);
  Result half = RunArgs({"case-card", "--diagnosis", report, "--before", kNccl, "--library", dir.string()});
  EXPECT_EQ(half.code, 2);
  Result bad_after = RunArgs({"case-card", "--diagnosis", report, "--before", kNccl, "--after",
                              (dir / "gone.json").string(), "--library", dir.string()});
  EXPECT_EQ(bad_after.code, 2);
  EXPECT_NE(bad_after.err.find("gone.json"), std::string::npos) << bad_after.err;
  Result finding = RunArgs({"case-card", "--diagnosis", report, "--finding", "F99", "--library", dir.string()});
  EXPECT_EQ(finding.code, 2);
  EXPECT_NE(finding.err.find("report.yaml"), std::string::npos) << finding.err;
  // A diagnosis without findings makes no card (one would never be matched) and saves nothing.
  const fs::path empty = dir / "empty.yaml";
  std::ofstream(empty) << "schema_version: 1\nkind: diagnosis\nfindings: []\n";
  Result none = RunArgs({"case-card", "--diagnosis", empty.string(), "--library", (dir / "cards").string()});
  EXPECT_EQ(none.code, 2);
  EXPECT_NE(none.err.find("empty.yaml: the diagnosis has no finding"), std::string::npos) << none.err;
  EXPECT_FALSE(fs::exists(dir / "cards") && !fs::is_empty(dir / "cards"));
  Result no_library = RunArgs({"diagnose", "--trace", kNccl, "--case_library", (dir / "no_cases").string()});
  EXPECT_EQ(no_library.code, 2);
  EXPECT_NE(no_library.err.find("no_cases: no such folder"), std::string::npos) << no_library.err;
  Result a_file = RunArgs({"diagnose", "--trace", kNccl, "--case_library", empty.string()});
  EXPECT_EQ(a_file.code, 2);
  EXPECT_NE(a_file.err.find("empty.yaml: not a folder"), std::string::npos) << a_file.err;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace cprof::cli
