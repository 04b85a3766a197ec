// The `cluster` command and `summary --json`'s ascend_step_trace, run in-process on the real
// torch_npu fixtures: documented fields, exit codes, output formats.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "base/byte_source.h"
#include "cli/cli_test_util.h"
#include "import/csv/csv_header.h"

namespace cprof::cli {
namespace {
namespace fs = std::filesystem;
using cli_test::Result;
using cli_test::RunArgs;

const std::string kText = std::string(CPROF_FIXTURES_DIR) + "/ascend/text_level1";

TEST(ClusterCommand, JsonOnTheFixtureRanks) {
  Result r = RunArgs({"cluster", kText, "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["schema_version"], 1);
  EXPECT_EQ(doc["kind"], "cluster");
  ASSERT_EQ(doc["ranks"].size(), 2u);
  EXPECT_EQ(doc["ranks"][0]["rank"], 0);
  EXPECT_EQ(doc["ranks"][0]["steps"][0]["communication_not_overlapped_ns"], 101963203);
  ASSERT_EQ(doc["slow_ranks"].size(), 1u);
  EXPECT_EQ(doc["slow_ranks"][0]["rank"], 1);
  EXPECT_EQ(doc["slow_ranks"][0]["test"], "none (2 ranks)");
  EXPECT_NE(doc["straggler_test"]["note"].get<std::string>().find("no outlier test applies"), std::string::npos);
  EXPECT_EQ(doc["slow_ranks"][0]["evidence"][0]["op"], "hcom_allReduce__586_0_1");
  EXPECT_TRUE(doc["unreadable_ranks"].empty());
  EXPECT_FALSE(doc["communication_matrix"].empty());
  // The two ranks' communication matrices link them with ranks 2-7 of the job, which were not given.
  EXPECT_EQ(doc["missing_ranks"], nlohmann::json({2, 3, 4, 5, 6, 7}));
}

// An unreadable rank's id is unknown: the ranks the links name are not all "not given".
TEST(ClusterCommand, RanksTheLinksNameMayBeAmongTheUnreadable) {
  const fs::path dir = TestDir("cluster_unreadable");
  fs::create_directories(dir / "rank2_ascend_pt" / "ASCEND_PROFILER_OUTPUT");
  std::ofstream(dir / "rank2_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json") << "garbage\n";
  Result r = RunArgs({"cluster", kText, (dir / "rank2_ascend_pt").string(), "--format", "md"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("1 unreadable."), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("6 more rank(s) that were not read (2, 3, 4, 5, 6, 7): some may be among the 1 unreadable"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("that were not given"), std::string::npos) << r.out;
  Result all_read = RunArgs({"cluster", kText, "--format", "md"});
  EXPECT_NE(all_read.out.find("6 more rank(s) that were not given"), std::string::npos) << all_read.out;
  fs::remove_all(dir);
}

TEST(ClusterCommand, ARankGivenTwiceIsReadOnce) {
  // The folder of ranks and one rank again: two ranks, not three, so no outlier test runs.
  Result r = RunArgs({"cluster", kText, kText + "/rank0_ascend_pt/", "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("rank0_ascend_pt/ is among the inputs more than once; read once"), std::string::npos) << r.err;
  auto doc = nlohmann::json::parse(r.out);
  EXPECT_EQ(doc["rank_count"], 2);
  ASSERT_EQ(doc["slow_ranks"].size(), 1u);
  EXPECT_EQ(doc["slow_ranks"][0]["test"], "none (2 ranks)");

  // A copy of rank 0 elsewhere: same rank id from another path, left out with a note.
  fs::path dir = fs::temp_directory_path() / ("cprof_cluster_dup_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  fs::copy(kText + "/rank0_ascend_pt", dir / "rank0_ascend_pt", fs::copy_options::recursive);
  r = RunArgs({"cluster", kText, (dir / "rank0_ascend_pt").string()});
  fs::remove_all(dir);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("2 rank(s) read (summary tables mode), 1 more with a rank id already read left out"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("## Duplicate ranks (left out of the analysis)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("no outlier test applies"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("dixon_q_r10"), std::string::npos) << r.out;
}

TEST(ClusterCommand, FullTraceSpellingsAndMarkdownOutput) {
  fs::path out = fs::temp_directory_path() / ("cprof_cluster_" + std::to_string(::getpid()) + ".md");
  Result r = RunArgs({"cluster", kText + "/rank0_ascend_pt", kText + "/rank1_ascend_pt", "--full-trace", "--output",
                      out.string()});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string md = *ReadWholeFile(out.string());
  fs::remove(out);
  EXPECT_NE(md.find("# Cluster analysis"), std::string::npos);
  EXPECT_NE(md.find("### Rank 1"), std::string::npos);
  EXPECT_NE(md.find("full traces"), std::string::npos);
  EXPECT_NE(md.find("trace (Overlap Analysis)"), std::string::npos);
}

TEST(ClusterCommand, BadInputExitsTwo) {
  EXPECT_EQ(RunArgs({"cluster", "/nonexistent/dir"}).code, 2);
  fs::path empty = fs::temp_directory_path() / ("cprof_cluster_empty_" + std::to_string(::getpid()));
  fs::create_directories(empty);
  Result r = RunArgs({"cluster", empty.string()});
  fs::remove_all(empty);
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("no torch_npu"), std::string::npos) << r.err;
  EXPECT_EQ(RunArgs({"cluster", kText, "--format", "yaml"}).code, 2);
}

// summary --json on a rank folder: ascend_step_trace is step_trace_time.csv, column for column
// (snake_case keys, us as in the file), for the text and the db export.
TEST(SummaryAscendStepTrace, EqualsStepTraceTimeCsv) {
  for (int rank : {0, 1}) {
    std::string dir = kText + "/rank" + std::to_string(rank) + "_ascend_pt";
    Result r = RunArgs({"summary", dir, "--json"});
    ASSERT_EQ(r.code, 0) << r.err;
    auto doc = nlohmann::json::parse(r.out);
    const auto& steps = doc["ascend_step_trace"];
    ASSERT_EQ(steps.size(), 1u);
    std::string csv = *ReadWholeFile(dir + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
    CsvReader reader(csv, "step_trace_time.csv");
    auto header = CsvHeader::Read(&reader);
    ASSERT_TRUE(*reader.Next());
    const std::map<std::string, std::string> keys = {
        {"Step", "step"}, {"Computing", "computing"}, {"Communication(Not Overlapped)", "communication_not_overlapped"},
        {"Overlapped", "overlapped"}, {"Communication", "communication"}, {"Free", "free"}, {"Stage", "stage"},
        {"Bubble", "bubble"}, {"Communication(Not Overlapped and Exclude Receive)",
                               "communication_not_overlapped_and_exclude_receive"},
        {"Preparing", "preparing"}};
    for (size_t c = 0; c < header->names().size(); ++c) {
      const std::string& key = keys.at(header->names()[c]);
      ASSERT_TRUE(steps[0].contains(key)) << key;
      EXPECT_DOUBLE_EQ(steps[0][key].get<double>(), *ParseCsvDouble(*CleanCsvCell(reader.field(c)))) << key;
    }
  }
  Result db = RunArgs({"summary", std::string(CPROF_FIXTURES_DIR) + "/ascend/db_level1/rank0_ascend_pt", "--json"});
  ASSERT_EQ(db.code, 0) << db.err;
  auto doc = nlohmann::json::parse(db.out);
  EXPECT_DOUBLE_EQ(doc["ascend_step_trace"][0]["communication_not_overlapped"].get<double>(), 98071.947);
}

}  // namespace
}  // namespace cprof::cli
