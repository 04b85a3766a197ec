// Unit tests of the straggler analysis on hand-made rank summaries.
#include "analysis/cluster/cluster_analysis.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

namespace cprof {
namespace {

// `n` ranks meeting in `ops` allreduces; rank r arrives `delay_ms[r]` late (plus a small jitter),
// so every other rank waits for the last one.
std::vector<RankSummary> MakeCluster(int n, int ops, const std::map<int, double>& delay_ms) {
  std::vector<RankSummary> ranks(n);
  for (int r = 0; r < n; ++r) {
    ranks[r].rank = r;
    ranks[r].path = "rank" + std::to_string(r);
    ranks[r].steps.push_back({.step = "1", .computing_ns = 10'000'000 + (delay_ms.count(r) ? std::llround(delay_ms.at(r) * 1e6) : 0),
                              .free_ns = 1'000'000, .stage_ns = 50'000'000});
  }
  for (int k = 0; k < ops; ++k) {
    std::vector<double> arrival(n);
    double last = 0;
    for (int r = 0; r < n; ++r) {
      arrival[r] = 0.01 * ((r * 7 + k * 3) % 10);  // jitter up to 0.09 ms
      if (auto it = delay_ms.find(r); it != delay_ms.end()) arrival[r] += it->second;
      last = std::max(last, arrival[r]);
    }
    for (int r = 0; r < n; ++r) {
      int64_t wait = std::llround((last - arrival[r]) * 1e6);
      ranks[r].ops.push_back({.step = "1", .kind = "collective", .group = "g", .name = "allreduce_" + std::to_string(k),
                              .start_ns = std::llround(arrival[r] * 1e6), .elapse_ns = wait + 1'000'000,
                              .transit_ns = 900'000, .wait_ns = wait, .sync_ns = wait, .has_wait = true});
    }
  }
  return ranks;
}

std::set<int64_t> SlowIds(const ClusterReport& r) {
  std::set<int64_t> out;
  for (const SlowRank& s : r.slow_ranks) out.insert(s.rank);
  return out;
}

TEST(ClusterAnalysis, TwoRanksNoTestButWaitEvidence) {
  ClusterReport r = AnalyzeCluster(MakeCluster(2, 4, {{1, 5.0}}));
  EXPECT_NE(r.test_note.find("no outlier test applies"), std::string::npos);
  ASSERT_EQ(r.slow_ranks.size(), 1u);
  const SlowRank& s = r.slow_ranks[0];
  EXPECT_EQ(s.rank, 1);
  EXPECT_TRUE(s.tests.empty());
  EXPECT_EQ(s.votes, 4);
  EXPECT_NEAR(s.mean_cost_per_step_ns / 1e6, 4 * 5.0, 0.5);  // 4 ops, ~5 ms each
  EXPECT_NE(s.likely_cause.find("computing"), std::string::npos) << s.likely_cause;
}

TEST(ClusterAnalysis, ARankIdGivenTwiceIsAnalyzedOnce) {
  std::vector<RankSummary> ranks = MakeCluster(2, 4, {{1, 5.0}});
  RankSummary copy = ranks[0];
  copy.path = "copy/rank0";  // sorts before "rank0", so it is the one kept
  ranks.push_back(copy);
  ClusterReport r = AnalyzeCluster(ranks);
  ASSERT_EQ(r.ranks.size(), 2u);
  EXPECT_EQ(r.ranks[0].path, "copy/rank0");
  ASSERT_EQ(r.duplicates.size(), 1u);
  EXPECT_EQ(r.duplicate_rank_ids, 1);
  EXPECT_EQ(r.duplicates[0].path, "rank0");
  EXPECT_EQ(r.duplicates[0].rank, 0);
  EXPECT_EQ(r.duplicates[0].kept_path, "copy/rank0");
  // Two distinct ranks: no outlier test runs on a sample padded with a copy.
  EXPECT_NE(r.test_note.find("no outlier test applies"), std::string::npos) << r.test_note;
  ASSERT_EQ(r.slow_ranks.size(), 1u);
  EXPECT_TRUE(r.slow_ranks[0].tests.empty());
}

TEST(ClusterAnalysis, ManyRanksFindsEveryPlantedStraggler) {
  std::map<int, double> planted = {{7, 3.0}, {23, 5.0}, {50, 8.0}};
  ClusterReport r = AnalyzeCluster(MakeCluster(64, 6, planted));
  EXPECT_EQ(SlowIds(r), (std::set<int64_t>{7, 23, 50}));
  for (const SlowRank& s : r.slow_ranks) {
    bool esd_or_mad = false;
    for (const auto& t : s.tests) esd_or_mad |= t.fired && (t.name == "generalized_esd" || t.name == "mad_modified_z");
    EXPECT_TRUE(esd_or_mad) << s.rank << ": " << s.basis;
    EXPECT_FALSE(s.late_ops.empty());
  }
  // The latest straggler costs the most and comes first.
  EXPECT_EQ(r.slow_ranks[0].rank, 50);
  bool dixon_fired = false;
  for (const auto& t : r.slow_ranks[0].tests) dixon_fired |= t.name.starts_with("dixon") && t.fired;
  EXPECT_TRUE(dixon_fired);
}

TEST(ClusterAnalysis, HundredsOfRanksWithoutDixon) {
  ClusterReport r = AnalyzeCluster(MakeCluster(300, 3, {{123, 4.0}}));
  EXPECT_EQ(SlowIds(r), (std::set<int64_t>{123}));
  EXPECT_NE(r.test_note.find("Dixon not applicable"), std::string::npos);
}

TEST(ClusterAnalysis, NoStragglerInABalancedCluster) {
  ClusterReport r = AnalyzeCluster(MakeCluster(16, 5, {}));
  EXPECT_TRUE(r.slow_ranks.empty()) << r.slow_ranks[0].basis;
  EXPECT_EQ(r.ops.size(), 5u);
}

TEST(ClusterAnalysis, SlowLinkAgainstItsTransportMedian) {
  std::vector<RankSummary> ranks = MakeCluster(4, 1, {});
  for (auto& r : ranks) {
    for (int d = 0; d < 4; ++d) {
      if (d == r.rank) continue;
      double bw = (r.rank == 2 && d == 3) ? 4.0 : 17.0 + 0.1 * d;
      r.links.push_back({.step = "step1", .op = "allreduce-total", .group = "g", .transport = "HCCS",
                         .src_rank = r.rank, .dst_rank = d, .size_mb = 100, .time_ms = 100 / bw, .bandwidth_gbps = bw});
    }
  }
  ClusterReport r = AnalyzeCluster(ranks);
  ASSERT_EQ(r.slow_links.size(), 1u);
  EXPECT_EQ(r.slow_links[0].src_rank, 2);
  EXPECT_EQ(r.slow_links[0].dst_rank, 3);
  ASSERT_EQ(r.transports.size(), 1u);
  EXPECT_EQ(r.transports[0].links, 12);
  EXPECT_TRUE(r.missing_ranks.empty()) << "every linked rank was given";
}

// Two ranks of an eight-rank job: their links name ranks 2-7, which the report lists as missing.
TEST(ClusterAnalysis, LinkedRanksThatWereNotGivenAreListed) {
  std::vector<RankSummary> ranks = MakeCluster(2, 1, {});
  for (auto& r : ranks)
    for (int d = 0; d < 8; ++d)
      r.links.push_back({.step = "step1", .op = "allreduce", .group = "g", .transport = "HCCS", .op_name = "",
                         .src_rank = r.rank, .dst_rank = d, .size_mb = 1, .time_ms = 1, .bandwidth_gbps = 1});
  ClusterReport r = AnalyzeCluster(ranks);
  EXPECT_EQ(r.missing_ranks, (std::vector<int64_t>{2, 3, 4, 5, 6, 7}));
}

}  // namespace
}  // namespace cprof
