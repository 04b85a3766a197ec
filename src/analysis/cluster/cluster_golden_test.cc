// Golden tests of cluster analysis on the real 2-rank torch_npu fixture and on synthetic
// many-rank sets generated from it at test time (planted stragglers, a planted slow link, a
// broken rank), in both modes: summary tables and full traces.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

#include "analysis/cluster/rank_loader.h"
#include "base/byte_source.h"
#include "import/ascend/ascend_layout.h"
#include "import/import_trace.h"

namespace cprof {
namespace {
namespace fs = std::filesystem;

const std::string kFixture = std::string(CPROF_FIXTURES_DIR) + "/ascend/text_level1/";

// The `cluster` command's loader: summary tables, or the full trace when they lack the steps.
RankTraceLoader Loader(bool full) {
  return [full](const std::string& p) {
    ImportOptions o;
    o.summary_tables_only = !full;
    o.threads = 1;
    StatusOr<Trace> t = ImportTrace(p, o);
    if (!full && t.ok() && t->MetadataText("ascend_step_trace").empty()) {
      o.summary_tables_only = false;
      t = ImportTrace(p, o);
    }
    return t;
  };
}

ClusterReport RunCluster(const std::vector<std::string>& paths, bool full) {
  LoadedRanks l = LoadRankSummaries(paths, Loader(full), full, 2);
  return AnalyzeCluster(std::move(l.ranks), std::move(l.unreadable));
}

class FixtureCluster : public ::testing::TestWithParam<bool> {};

TEST_P(FixtureCluster, Rank1IsTheStragglerFromWaitEvidence) {
  const bool full = GetParam();
  ClusterReport r = RunCluster({kFixture + "rank0_ascend_pt", kFixture + "rank1_ascend_pt"}, full);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_TRUE(r.unreadable.empty());
  EXPECT_NE(r.test_note.find("no outlier test applies"), std::string::npos) << r.test_note;
  ASSERT_EQ(r.slow_ranks.size(), 1u);
  const SlowRank& s = r.slow_ranks[0];
  EXPECT_EQ(s.rank, 1);
  EXPECT_TRUE(s.tests.empty());
  // Rank 0 waited 5.616 ms in synchronization on the first allreduce for rank 1.
  ASSERT_FALSE(s.late_ops.empty());
  EXPECT_EQ(s.late_ops[0].name, "hcom_allReduce__586_0_1");
  EXPECT_NEAR(s.late_ops[0].lateness_ns / 1e6, 5.61569, 0.001);
  EXPECT_NEAR(s.mean_cost_per_step_ns / 1e6, 5.6157, 0.01);
  EXPECT_EQ(s.cost_per_step_ns.count("50"), 1u);
  EXPECT_NE(s.likely_cause.find("preparing"), std::string::npos) << s.likely_cause;

  // Per-rank breakdown equals step_trace_time.csv (the trace recomputation is exact for the
  // sums; Stage and Preparing differ by torch_npu's float64 quantisation, < 0.25 us).
  struct Want {
    int64_t computing, not_overlapped, overlapped, communication, free, stage, preparing;
  };
  const Want want[2] = {{8873756, 101963203, 4028675, 105991878, 25744050, 136581000, 17902500},
                        {8878295, 96359047, 4016239, 100375286, 26675274, 131912500, 20433250}};
  for (int k = 0; k < 2; ++k) {
    const RankSummary& rs = r.ranks[k];
    EXPECT_EQ(rs.rank, k);
    ASSERT_EQ(rs.steps.size(), 1u);
    const RankStep& st = rs.steps[0];
    EXPECT_EQ(st.step, "50");
    EXPECT_EQ(rs.step_source, full ? "trace (Overlap Analysis)" : "step_trace_time.csv");
    EXPECT_NEAR(st.computing_ns, want[k].computing, 1);
    EXPECT_NEAR(st.comm_not_overlapped_ns, want[k].not_overlapped, 1);
    EXPECT_NEAR(st.overlapped_ns, want[k].overlapped, 1);
    EXPECT_NEAR(st.communication_ns, want[k].communication, 1);
    EXPECT_NEAR(st.free_ns, want[k].free, 1);
    EXPECT_NEAR(st.stage_ns, want[k].stage, 250);
    EXPECT_NEAR(st.preparing_ns, want[k].preparing, 250);
    EXPECT_EQ(rs.ops.size(), 4u);
  }
  EXPECT_EQ(r.ops.size(), 4u);
  ASSERT_FALSE(r.transports.empty());
  EXPECT_EQ(r.transports[0].transport, "HCCS");
  EXPECT_TRUE(r.slow_links.empty());
}

INSTANTIATE_TEST_SUITE_P(Modes, FixtureCluster, ::testing::Values(false, true),
                         [](const auto& info) { return info.param ? "FullTrace" : "SummaryTables"; });

// Writes `n` rank folders made from the rank-0 fixture. Rank r reaches the first allreduce of the
// step `delay_ms[r]` late (plus < 0.1 ms of jitter); everyone waits for the last one, as HCCL
// does, and the straggler's extra time shows as computing. Link `slow_link` runs at a quarter of
// the bandwidth. With `full`, the big files are linked in so the trace can be imported too.
void MakeSyntheticCluster(const fs::path& dir, int n, const std::map<int, double>& delay_ms,
                          std::pair<int, int> slow_link, bool full) {
  const fs::path src = kFixture + "rank0_ascend_pt";
  auto comm = nlohmann::json::parse(*ReadWholeFile((src / "ASCEND_PROFILER_OUTPUT/communication.json").string()));
  auto matrix = nlohmann::json::parse(*ReadWholeFile((src / "ASCEND_PROFILER_OUTPUT/communication_matrix.json").string()));
  auto info = nlohmann::json::parse(*ReadWholeFile((src / "profiler_info_0.json").string()));
  std::string steps = *ReadWholeFile((src / "ASCEND_PROFILER_OUTPUT/step_trace_time.csv").string());
  std::vector<double> arrival(n);
  double last = 0;
  for (int r = 0; r < n; ++r) {
    arrival[r] = 0.01 * ((r * 7) % 10) + (delay_ms.count(r) ? delay_ms.at(r) : 0.0);
    last = std::max(last, arrival[r]);
  }
  for (int r = 0; r < n; ++r) {
    fs::path rank_dir = dir / ("rank" + std::to_string(r) + "_ascend_pt");
    fs::path out = rank_dir / "ASCEND_PROFILER_OUTPUT";
    fs::create_directories(out);
    info["rank_id"] = r;
    std::ofstream(rank_dir / ("profiler_info_" + std::to_string(r) + ".json")) << info.dump();
    nlohmann::json c = comm;
    int k = 0;
    for (auto& [key, op] : c["step50"]["collective"].items()) {
      if (key == "Total Op Info") continue;
      auto& t = op["Communication Time Info"];
      double wait = k == 0 ? last - arrival[r] : 0.001 * ((r + k) % 5);
      t["Synchronization Time(ms)"] = wait;
      t["Wait Time(ms)"] = wait + 0.03;
      t["Elapse Time(ms)"] = t["Transit Time(ms)"].get<double>() + wait + 0.05;
      t["Start Timestamp(us)"] = t["Start Timestamp(us)"].get<double>() + (k == 0 ? arrival[r] * 1000 : 0);
      ++k;
    }
    std::ofstream(out / "communication.json") << c.dump();
    nlohmann::json m = matrix;
    for (auto& [op_key, links] : m["step50"]["collective"].items()) {
      nlohmann::json renamed = nlohmann::json::object();
      for (auto& [link, v] : links.items()) {
        int dst = (r + std::stoi(link.substr(link.find('-') + 1))) % n;
        if (r == slow_link.first && dst == slow_link.second) v["Bandwidth(GB/s)"] = v["Bandwidth(GB/s)"].get<double>() / 4;
        renamed[std::to_string(r) + "-" + std::to_string(dst)] = v;
      }
      links = renamed;
    }
    std::ofstream(out / "communication_matrix.json") << m.dump();
    double extra_us = delay_ms.count(r) ? delay_ms.at(r) * 1000 : 0;
    std::string line2 = steps.substr(steps.find('\n') + 1);
    std::string head = steps.substr(0, steps.find('\n') + 1);
    size_t c1 = line2.find(','), c2 = line2.find(',', c1 + 1);
    double computing = std::stod(line2.substr(c1 + 1, c2 - c1 - 1)) + extra_us;
    std::ofstream(out / "step_trace_time.csv") << head << line2.substr(0, c1 + 1) << computing << line2.substr(c2);
    if (full) {
      for (const char* f : {"trace_view.json", "kernel_details.csv", "op_statistic.csv"}) {
        fs::create_symlink(src / "ASCEND_PROFILER_OUTPUT" / f, out / f);
      }
    }
  }
}

class SyntheticCluster : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cprof_cluster_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_F(SyntheticCluster, SixtyFourRanksFindsEveryPlantedStragglerAndTheSlowLink) {
  MakeSyntheticCluster(dir_, 64, {{9, 3.0}, {33, 6.0}, {60, 9.0}}, {5, 6}, /*full=*/false);
  // A broken rank: a result folder whose tables cannot be read.
  fs::create_directories(dir_ / "rank64_ascend_pt" / "ASCEND_PROFILER_OUTPUT");
  std::ofstream(dir_ / "rank64_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json") << "[{\"ph\": \"X\", ";
  std::vector<std::string> paths = FindProfilerResults(dir_.string());
  ASSERT_EQ(paths.size(), 65u);
  ClusterReport r = RunCluster(paths, /*full=*/false);
  EXPECT_EQ(r.ranks.size(), 64u);
  std::set<int64_t> slow;
  for (const SlowRank& s : r.slow_ranks) {
    slow.insert(s.rank);
    EXPECT_FALSE(s.tests.empty());
    EXPECT_GT(s.mean_cost_per_step_ns, 0);
  }
  EXPECT_EQ(slow, (std::set<int64_t>{9, 33, 60}));
  EXPECT_EQ(r.slow_ranks[0].rank, 60);  // the latest one costs the most
  EXPECT_NE(r.slow_ranks[0].likely_cause.find("computing"), std::string::npos) << r.slow_ranks[0].likely_cause;
  ASSERT_FALSE(r.slow_links.empty());
  EXPECT_EQ(r.slow_links[0].src_rank, 5);
  EXPECT_EQ(r.slow_links[0].dst_rank, 6);
  EXPECT_EQ(r.tests_applied.size(), 3u);
}

TEST_F(SyntheticCluster, FullTracesOfSixteenRanksAndAnUnreadableOne) {
  MakeSyntheticCluster(dir_, 16, {{11, 4.0}}, {-1, -1}, /*full=*/true);
  fs::create_directories(dir_ / "rank16_ascend_pt" / "ASCEND_PROFILER_OUTPUT");
  std::ofstream(dir_ / "rank16_ascend_pt" / "ASCEND_PROFILER_OUTPUT" / "trace_view.json") << "[{\"ph\": \"X\", ";
  ClusterReport r = RunCluster(FindProfilerResults(dir_.string()), /*full=*/true);
  EXPECT_EQ(r.ranks.size(), 16u);
  ASSERT_EQ(r.unreadable.size(), 1u);
  EXPECT_NE(r.unreadable[0].path.find("rank16_ascend_pt"), std::string::npos);
  EXPECT_NE(r.unreadable[0].reason.find("trace_view.json"), std::string::npos) << r.unreadable[0].reason;
  ASSERT_EQ(r.slow_ranks.size(), 1u);
  EXPECT_EQ(r.slow_ranks[0].rank, 11);
  EXPECT_EQ(r.ranks[0].step_source, "trace (Overlap Analysis)");
}

}  // namespace
}  // namespace cprof
