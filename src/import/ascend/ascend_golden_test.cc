// Golden tests of the torch_npu folder import on the real 2-rank fixtures (text and db exports):
// the step breakdown equals step_trace_time.csv (and analysis.db's StepTraceTime) and the steps
// recomputed from the trace; communication op totals equal communication.json's "Total Op Info";
// every kernel_details.csv row lands on its device task with its PMU columns.
#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "base/byte_source.h"
#include "import/csv/csv_header.h"
#include "import/import_trace.h"
#include "import/sqlite/sqlite_db.h"

namespace cprof {
namespace {

const std::string kText = std::string(CPROF_FIXTURES_DIR) + "/ascend/text_level1/";
const std::string kDb = std::string(CPROF_FIXTURES_DIR) + "/ascend/db_level1/rank0_ascend_pt";

nlohmann::json MetaJson(const Trace& t, std::string_view key) {
  std::string text = t.MetadataText(key);
  return text.empty() ? nlohmann::json() : nlohmann::json::parse(text);
}

struct CommTotals {
  int ops = 0;
  int64_t elapse = 0, transit = 0, wait = 0, sync = 0, idle = 0;
};

CommTotals SumCommOps(const Trace& t) {
  CommTotals c;
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    auto e = t.SliceArg(i, "comm.elapse_time_ns");
    if (!e) continue;
    ++c.ops;
    c.elapse += e->i;
    c.transit += t.SliceArg(i, "comm.transit_time_ns")->i;
    c.wait += t.SliceArg(i, "comm.wait_time_ns")->i;
    c.sync += t.SliceArg(i, "comm.synchronization_time_ns")->i;
    c.idle += t.SliceArg(i, "comm.idle_time_ns")->i;
  }
  return c;
}

// The CSV's step rows as {column -> value}, read with our own CSV reader.
std::vector<std::map<std::string, double>> ReadStepCsv(const std::string& path) {
  auto text = ReadWholeFile(path);
  EXPECT_TRUE(text.ok());
  CsvReader r(*text, path);
  auto h = CsvHeader::Read(&r);
  std::vector<std::map<std::string, double>> rows;
  while (*r.Next()) {
    std::map<std::string, double> row;
    for (size_t c = 0; c < h->names().size(); ++c) row[h->names()[c]] = *ParseCsvDouble(*CleanCsvCell(r.field(c)));
    rows.push_back(row);
  }
  return rows;
}

class AscendTextGolden : public ::testing::TestWithParam<int> {};

TEST_P(AscendTextGolden, ImportsEveryTableAndCrossChecksPass) {
  const int rank = GetParam();
  const std::string dir = kText + "rank" + std::to_string(rank) + "_ascend_pt";
  auto trace = ImportTrace(dir);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const Trace& t = *trace;
  EXPECT_EQ(t.MetadataText("source_format"), "torch_npu");
  EXPECT_EQ(t.MetadataText("rank"), std::to_string(rank));
  EXPECT_EQ(t.MetadataText("import_problems"), "");
  EXPECT_EQ(t.MetadataText("missing_files"), "");
  EXPECT_EQ(t.stats.Get(ImportStat::ascend_step_trace_mismatch), 0) << t.MetadataText("import_cross_checks");
  EXPECT_EQ(t.stats.Get(ImportStat::ascend_op_statistic_mismatch), 0) << t.MetadataText("import_cross_checks");
  EXPECT_EQ(t.stats.Get(ImportStat::ascend_kernel_unmatched), 0);
  EXPECT_EQ(t.stats.Get(ImportStat::ascend_comm_op_unmatched), 0);
  EXPECT_EQ(t.stats.Get(ImportStat::csv_bad_row), 0);
  auto checks = MetaJson(t, "import_cross_checks");
  ASSERT_EQ(checks.size(), 2u) << checks.dump();
  EXPECT_NE(checks[0].get<std::string>().find("step 50: matches the trace"), std::string::npos) << checks.dump();
  EXPECT_NE(checks[1].get<std::string>().find("all 33 op types match"), std::string::npos) << checks.dump();
  for (uint32_t i = 0; i < t.tracks.size(); ++i) EXPECT_EQ(t.tracks.rank[i], rank);

  // Step breakdown: the metadata reproduces step_trace_time.csv column for column.
  auto csv = ReadStepCsv(dir + "/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
  auto steps = MetaJson(t, "ascend_step_trace");
  ASSERT_EQ(steps.size(), csv.size());
  for (const auto& [col, v] : csv[0]) {
    std::string key;
    bool sep = false;
    for (char ch : col) {
      if (std::isalnum(static_cast<unsigned char>(ch))) {
        if (sep && !key.empty()) key += '_';
        key += static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        sep = false;
      } else {
        sep = true;
      }
    }
    ASSERT_TRUE(steps[0].contains(key)) << key;
    EXPECT_DOUBLE_EQ(steps[0][key].get<double>(), v) << key;
  }

  // Communication: four allreduce ops carry the breakdown, summing to "Total Op Info".
  auto comm = nlohmann::json::parse(*ReadWholeFile(dir + "/ASCEND_PROFILER_OUTPUT/communication.json"));
  const auto& total = comm["step50"]["collective"]["Total Op Info"]["Communication Time Info"];
  CommTotals c = SumCommOps(t);
  EXPECT_EQ(c.ops, 4);
  EXPECT_NEAR(c.elapse / 1e6, total["Elapse Time(ms)"].get<double>(), 1e-5);
  EXPECT_NEAR(c.transit / 1e6, total["Transit Time(ms)"].get<double>(), 1e-5);
  EXPECT_NEAR(c.wait / 1e6, total["Wait Time(ms)"].get<double>(), 1e-5);
  EXPECT_NEAR(c.sync / 1e6, total["Synchronization Time(ms)"].get<double>(), 1e-5);
  EXPECT_NEAR(c.idle / 1e6, total["Idle Time(ms)"].get<double>(), 1e-5);

  // The ops are the trace's HCCL slices (merged, not duplicated) and keep their trace args.
  int hcom = 0;
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    if (t.Str(t.slices.name_id[i]) != "hcom_allReduce__586_0_1") continue;
    if (t.tracks.kind[Index(t.slices.track_id[i])] != TrackKind::kCommunication) continue;
    ++hcom;
    EXPECT_TRUE(t.SliceArg(i, "alg_type").has_value());
    EXPECT_TRUE(t.SliceArg(i, "comm.HCCS.bandwidth_gbps").has_value());
    EXPECT_TRUE(t.SliceArg(i, "Accelerator Core").has_value());  // from kernel_details.csv
  }
  EXPECT_EQ(hcom, 1);

  // PMU columns on device tasks.
  int with_pmu = 0;
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    if (t.tracks.kind[Index(t.slices.track_id[i])] != TrackKind::kNpuStream) continue;
    if (t.SliceArg(i, "aiv_vec_ratio")) ++with_pmu;
    if (t.Str(t.slices.name_id[i]) == "trans_TransData_0") {
      EXPECT_EQ(t.SliceArg(i, "Block Dim")->i, 32);
      EXPECT_EQ(t.Str(t.SliceArg(i, "Input Shapes")->s), "32,3,224,224");
      EXPECT_EQ(t.Str(t.SliceArg(i, "Accelerator Core")->s), "AI_VECTOR_CORE");  // kernel_details.csv
      EXPECT_TRUE(t.SliceArg(i, "Task Type").has_value());                          // trace_view.json
    }
  }
  // Every row of kernel_details.csv with PMU values: all but the 4 HCCL and 2 DSA_SQE rows (N/A).
  EXPECT_EQ(with_pmu, 191 - 4 - 2);

  // Memory tables.
  EXPECT_GT(t.memory_events.size(), 184u);
  bool has_counter = false;
  for (uint32_t i = 0; i < t.tracks.size(); ++i) {
    has_counter |= t.Str(t.tracks.name_id[i]) == "PTA+GE Total Reserved(MB)";
  }
  EXPECT_TRUE(has_counter);
  EXPECT_FALSE(t.MetadataText("environment").empty());
  EXPECT_FALSE(t.MetadataText("clock_sync").empty());
}

INSTANTIATE_TEST_SUITE_P(Ranks, AscendTextGolden, ::testing::Values(0, 1));

TEST(AscendGolden, Rank0StepFiftyExposedCommunication) {
  auto trace = ImportTrace(kText + "rank0_ascend_pt");
  ASSERT_TRUE(trace.ok());
  auto steps = MetaJson(*trace, "ascend_step_trace");
  EXPECT_EQ(steps[0]["step"].get<int>(), 50);
  EXPECT_DOUBLE_EQ(steps[0]["communication_not_overlapped"].get<double>(), 101963.203);
  EXPECT_DOUBLE_EQ(steps[0]["stage"].get<double>(), 136581.0);
}

TEST(AscendGolden, DbExportMatchesAnalysisDb) {
  auto trace = ImportTrace(kDb);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  const Trace& t = *trace;
  EXPECT_EQ(t.MetadataText("source_format"), "torch_npu");
  EXPECT_EQ(t.MetadataText("export_type"), "db");
  EXPECT_EQ(t.MetadataText("rank"), "0");
  EXPECT_EQ(t.MetadataText("import_problems"), "");
  EXPECT_EQ(t.stats.Get(ImportStat::ascend_step_trace_mismatch), 0) << t.MetadataText("import_cross_checks");
  EXPECT_EQ(t.stats.Get(ImportStat::ascend_comm_op_unmatched), 0);
  auto checks = MetaJson(t, "import_cross_checks");
  ASSERT_GE(checks.size(), 1u);
  EXPECT_NE(checks[0].get<std::string>().find("step 50: matches the trace"), std::string::npos) << checks.dump();

  auto db = SqliteDb::Open(kDb + "/ASCEND_PROFILER_OUTPUT/analysis.db");
  ASSERT_TRUE(db.ok());
  auto st = db->Prepare(
      "SELECT sum(elapse_time), sum(transit_time), sum(wait_time), sum(synchronization_time), sum(idle_time), "
      "count(*) FROM CommAnalyzerTime");
  ASSERT_TRUE(st.ok() && *st->Step());
  CommTotals c = SumCommOps(t);
  EXPECT_EQ(c.ops, st->Int(5));
  EXPECT_NEAR(c.elapse / 1e6, st->Double(0), 1e-5);
  EXPECT_NEAR(c.transit / 1e6, st->Double(1), 1e-5);
  EXPECT_NEAR(c.wait / 1e6, st->Double(2), 1e-5);
  EXPECT_NEAR(c.sync / 1e6, st->Double(3), 1e-5);
  EXPECT_NEAR(c.idle / 1e6, st->Double(4), 1e-5);

  auto steps = MetaJson(t, "ascend_step_trace");
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0]["step"].get<int>(), 50);
  EXPECT_DOUBLE_EQ(steps[0]["computing"].get<double>(), 8903.431);
  EXPECT_DOUBLE_EQ(steps[0]["communication_not_overlapped"].get<double>(), 98071.947);

  // Device tasks with names, PMU args and launch flows; framework ops on their threads.
  int kernels = 0, flows = 0;
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    if (t.tracks.kind[Index(t.slices.track_id[i])] == TrackKind::kNpuStream && t.SliceArg(i, "aic_mac_ratio")) ++kernels;
  }
  for (size_t f = 0; f < t.flows.size(); ++f) flows += t.flows.kind[f] == FlowKind::kHostToDevice;
  EXPECT_EQ(kernels, 185);
  EXPECT_GT(flows, 200);
  EXPECT_FALSE(MetaJson(t, "communication_matrix").empty());
}

// A .db whose STRING_IDS lacks ids the other tables use: those names are '?' and counted as data
// loss. They were named by their numbers ("268435974"), which read as real operator names.
TEST(AscendGolden, DbStringIdsMissingAreCountedNotNamedByNumber) {
  EXPECT_EQ(ImportTrace(kDb)->stats.Get(ImportStat::ascend_unknown_string), 0);
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("cprof_ascend_ids_" + std::to_string(::getpid())) / "r0_ascend_pt";
  std::filesystem::remove_all(dir.parent_path());
  std::filesystem::create_directories(dir.parent_path());
  std::filesystem::copy(kDb, dir, std::filesystem::copy_options::recursive);
  const std::string db_path = (dir / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db").string();
  std::filesystem::permissions(db_path, std::filesystem::perms::owner_write, std::filesystem::perm_options::add);
  std::filesystem::permissions(dir / "ASCEND_PROFILER_OUTPUT", std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(db_path.c_str(), &db), SQLITE_OK);
  ASSERT_EQ(sqlite3_exec(db, "DELETE FROM STRING_IDS WHERE id % 3 = 0", nullptr, nullptr, nullptr), SQLITE_OK);
  sqlite3_close(db);
  auto trace = ImportTrace(dir.string());
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  EXPECT_GT(trace->stats.Get(ImportStat::ascend_unknown_string), 1000);
  for (StringId id : trace->slices.name_id) {
    const std::string_view name = trace->Str(id);
    ASSERT_FALSE(!name.empty() && name.find_first_not_of("0123456789") == std::string_view::npos)
        << "a slice named by its string id: " << name;
  }
  std::filesystem::remove_all(dir.parent_path());
}

TEST(AscendGolden, SummaryTablesOnlySkipsTheTraceButKeepsCommunication) {
  ImportOptions opts;
  opts.summary_tables_only = true;
  auto trace = ImportTrace(kText + "rank1_ascend_pt", opts);
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  CommTotals c = SumCommOps(*trace);
  EXPECT_EQ(c.ops, 4);
  EXPECT_EQ(trace->slices.size(), 4u);
  EXPECT_EQ(trace->MetadataText("rank"), "1");
  EXPECT_FALSE(trace->MetadataText("ascend_step_trace").empty());
  EXPECT_FALSE(trace->MetadataText("communication_matrix").empty());
}

}  // namespace
}  // namespace cprof
