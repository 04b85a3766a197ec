// Cluster analysis over the ranks of one job: per-rank step breakdown, the slow rank(s) with a
// statistical test and the evidence behind it, the straggler's cost per step, slow links and the
// communication matrix summary. Pure function of the rank summaries; never prints.
//
//   ClusterReport r = AnalyzeCluster(summaries);
//   for (const SlowRank& s : r.slow_ranks) use(s.rank, s.tests, s.late_ops, s.mean_cost_per_step_ns);
//
// How a straggler is found. Ranks meet in every collective; the one that arrives last makes the
// others wait (their "Synchronization Time" in torch_npu's communication analysis), while it
// waits the least itself. This is clock-independent (no cross-host timestamp comparison). Per
// rank, the metric is its total synchronization wait over all collective ops (send/receive
// excluded: their waits are not symmetric); a straggler is a LOW outlier of it.
//  - n >= 3: Dixon's Q test at 99.5% (n <= 100; r10/r11/r21/r22 by n, as msprof-analyze), Rosner's
//    generalized ESD at alpha = 0.005 (up to max(1, n/10) outliers; finds several stragglers where
//    Dixon finds one and repeated Grubbs tests mask), and the MAD modified z-score (< -3.5,
//    robust to up to half the ranks being slow). A rank is slow when any test fires and it did
//    arrive late (peers waited for it); each slow rank lists the tests and which fired.
//  - n == 2: no outlier test applies (said in `test_note`); the rank the other one waited for is
//    reported from the wait evidence alone when the wait exceeds the noise floor.
// Evidence per slow rank: the ops where it arrived last (its wait vs its peers' median), the
// votes (ops it was last in), its cost per step (sum over the step's ops of the peers' median wait
// minus its own), and the breakdown component where it exceeds the other ranks' median most.
// Ranks whose ops carry no wait times (a trace without communication.json) fall back to start
// times: lateness = its start minus the earliest start (needs synchronized clocks; said in basis).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "analysis/cluster/rank_summary.h"

namespace cprof {

struct OutlierTestResult {
  std::string name;        // "dixon_q_r22", "generalized_esd", "mad_modified_z"
  bool applicable = false;
  bool fired = false;      // this rank flagged
  double statistic = 0;    // this rank's statistic (Dixon: the ratio; ESD: R_i; MAD: modified z)
  double critical = 0;     // the critical value / threshold it is compared with
  std::string detail;
};

struct LateOp {
  std::string step, group, name;
  int64_t wait_ns = 0;               // this rank's synchronization wait
  int64_t median_peer_wait_ns = 0;   // the other ranks' median
  int64_t lateness_ns = 0;           // median_peer_wait - wait: how long peers waited for it
  int64_t ranks = 0;
};

struct SlowRank {
  int64_t rank = -1;
  std::string path;
  std::string basis;                     // what identified it
  std::vector<OutlierTestResult> tests;  // empty when no test applies (n == 2)
  double metric_ms = 0;                  // its total synchronization wait
  double metric_median_ms = 0;           // the cluster's median of that metric
  int64_t votes = 0;                     // collective ops where it arrived last
  int64_t ops_compared = 0;
  std::vector<LateOp> late_ops;          // most costly first (at most 20)
  std::map<std::string, int64_t> cost_per_step_ns;
  int64_t mean_cost_per_step_ns = 0;
  double cost_share_of_step = 0;         // mean cost / mean step stage time of the others
  std::string likely_cause;              // breakdown component where it exceeds the median most
};

struct OpAlignment {
  std::string step, group, name;
  int64_t ranks = 0;
  int64_t last_rank = -1;  // the rank that arrived last (least wait)
  int64_t min_wait_ns = 0, median_wait_ns = 0, max_wait_ns = 0;
};

struct SlowLink {
  std::string step, op, transport;
  int64_t src_rank = -1, dst_rank = -1;
  double bandwidth_gbps = 0, median_gbps = 0, ratio = 0, size_mb = 0;
  std::string reason;
};

struct TransportSummary {
  std::string transport;
  int64_t links = 0;
  double size_mb = 0, time_ms = 0;
  double bandwidth_gbps = 0;  // size / time over all links
  double min_gbps = 0, median_gbps = 0, max_gbps = 0;
};

struct UnreadableRank {
  std::string path;
  std::string reason;
};

// A rank left out because an earlier input (by path) already gave its rank id: the outlier tests
// must see each rank once, or a copy of one rank outvotes the others.
struct DuplicateRank {
  std::string path;
  int64_t rank = -1;
  std::string kept_path;  // the input with this id that was analyzed
};

struct ClusterReport {
  std::vector<RankSummary> ranks;  // sorted by rank id, each id once
  std::vector<UnreadableRank> unreadable;
  std::string metric;     // what the outlier tests ran on
  std::string test_note;  // which tests applied, or why none did
  std::vector<std::string> tests_applied;
  std::vector<SlowRank> slow_ranks;
  std::vector<OpAlignment> ops;  // collective ops aligned across ranks, largest wait spread first
  std::vector<SlowLink> slow_links;
  std::vector<TransportSummary> transports;
  int64_t duplicate_rank_ids = 0;  // ranks reporting an id another rank has (= duplicates.size())
  std::vector<DuplicateRank> duplicates;
  // Ranks the loaded ranks' communication links name but that were not given: the job is larger
  // than what was analyzed, and a straggler among them is invisible here.
  std::vector<int64_t> missing_ranks;
};

ClusterReport AnalyzeCluster(std::vector<RankSummary> ranks, std::vector<UnreadableRank> unreadable = {});

}  // namespace cprof
