// Straggler detection, its evidence and cost; slow links; the matrix summary.
#include "analysis/cluster/cluster_analysis.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "stats/dixon_q.h"
#include "stats/generalized_esd.h"
#include "stats/outliers.h"
#include "stats/quantile.h"

namespace cprof {
namespace {

constexpr double kAlpha = 0.005;       // 99.5%, as msprof-analyze's Dixon table
constexpr double kMadThreshold = 3.5;  // Iglewicz & Hoaglin
constexpr int64_t kMinNoiseNs = 20'000;  // waits below 20 us are scheduling noise

double Median(std::vector<double> v) { return v.empty() ? 0.0 : Quantile(std::move(v), 0.5); }

bool IsPointToPoint(const RankCommOp& op) {
  if (op.kind == "p2p") return true;
  std::string lower;
  for (char c : op.name) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lower.find("send") != std::string::npos || lower.find("receive") != std::string::npos ||
         lower.find("recv") != std::string::npos;
}

struct RankState {
  double wait_total_ns = 0;   // the test metric
  int64_t late_total_ns = 0;  // sum of positive lateness: how long peers waited for it
  int64_t votes = 0;
  int64_t ops = 0;
  bool start_based = false;
  std::vector<LateOp> late_ops;
  std::map<std::string, int64_t> cost_per_step;
};

struct MeanStep {
  double computing = 0, comm_not_overlapped = 0, free = 0, preparing = 0, bubble = 0, stage = 0;
};

MeanStep MeanOf(const RankSummary& r) {
  MeanStep m;
  if (r.steps.empty()) return m;
  for (const RankStep& s : r.steps) {
    m.computing += s.computing_ns, m.comm_not_overlapped += s.comm_not_overlapped_ns, m.free += s.free_ns;
    m.preparing += s.preparing_ns, m.bubble += s.bubble_ns, m.stage += s.stage_ns;
  }
  double n = static_cast<double>(r.steps.size());
  m.computing /= n, m.comm_not_overlapped /= n, m.free /= n, m.preparing /= n, m.bubble /= n, m.stage /= n;
  return m;
}

// The component (of those a rank controls: computing, preparing, free/idle, bubble) where `r`
// exceeds the other ranks' median most.
std::string LikelyCause(const std::vector<RankSummary>& ranks, size_t r) {
  if (ranks[r].steps.empty()) return "no step breakdown for this rank";
  struct Part {
    const char* name;
    double MeanStep::*field;
  };
  static constexpr Part kParts[] = {{"computing", &MeanStep::computing},
                                    {"preparing (host before the first device task)", &MeanStep::preparing},
                                    {"free (device idle)", &MeanStep::free},
                                    {"bubble (receive)", &MeanStep::bubble}};
  MeanStep mine = MeanOf(ranks[r]);
  std::string best, detail;
  double best_excess = 0;
  for (const Part& p : kParts) {
    std::vector<double> others;
    for (size_t i = 0; i < ranks.size(); ++i) {
      if (i != r && !ranks[i].steps.empty()) others.push_back(MeanOf(ranks[i]).*p.field);
    }
    if (others.empty()) return "no other rank has a step breakdown to compare with";
    double excess = mine.*p.field - Median(others);
    detail += fmt::format("{}{} {:+.3f} ms", detail.empty() ? "" : ", ", p.name, excess / 1e6);
    if (excess > best_excess) best_excess = excess, best = p.name;
  }
  if (best.empty()) return fmt::format("no breakdown component above the other ranks' median ({})", detail);
  return fmt::format("{} is {:.3f} ms/step above the other ranks' median (per step vs median: {})", best,
                     best_excess / 1e6, detail);
}

void AlignOps(ClusterReport* rep, std::vector<RankState>* state) {
  const auto& ranks = rep->ranks;
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<std::pair<size_t, const RankCommOp*>>> by_op;
  for (size_t r = 0; r < ranks.size(); ++r) {
    for (const RankCommOp& op : ranks[r].ops) {
      if (IsPointToPoint(op)) continue;
      by_op[{op.group, op.step, op.name}].push_back({r, &op});
    }
  }
  for (auto& [key, entries] : by_op) {
    if (entries.size() < 2) continue;
    // Waits: the synchronization time when every rank has it; else from start times.
    bool all_wait = true;
    for (const auto& e : entries) all_wait &= e.second->has_wait;
    std::vector<int64_t> waits(entries.size());
    std::vector<double> elapse;
    int64_t max_start = INT64_MIN;
    for (const auto& e : entries) max_start = std::max(max_start, e.second->start_ns);
    for (size_t i = 0; i < entries.size(); ++i) {
      const RankCommOp& op = *entries[i].second;
      waits[i] = all_wait ? op.sync_ns : max_start - op.start_ns;
      elapse.push_back(static_cast<double>(op.elapse_ns));
    }
    const int64_t noise = std::max<int64_t>(kMinNoiseNs, static_cast<int64_t>(0.005 * Median(elapse)));
    std::vector<double> wd(waits.begin(), waits.end());
    OpAlignment a{.step = std::get<1>(key), .group = std::get<0>(key), .name = std::get<2>(key)};
    a.ranks = static_cast<int64_t>(entries.size());
    size_t last = static_cast<size_t>(std::min_element(waits.begin(), waits.end()) - waits.begin());
    a.last_rank = ranks[entries[last].first].rank;
    a.min_wait_ns = waits[last];
    a.max_wait_ns = *std::max_element(waits.begin(), waits.end());
    a.median_wait_ns = std::llround(Median(wd));
    rep->ops.push_back(a);
    const bool spread = a.max_wait_ns - a.min_wait_ns > noise;
    for (size_t i = 0; i < entries.size(); ++i) {
      RankState& s = (*state)[entries[i].first];
      s.wait_total_ns += static_cast<double>(waits[i]);
      s.ops++;
      s.start_based |= !all_wait;
      std::vector<double> peers;
      for (size_t j = 0; j < entries.size(); ++j) {
        if (j != i) peers.push_back(wd[j]);
      }
      int64_t peer_median = std::llround(Median(peers));
      int64_t lateness = peer_median - waits[i];
      if (lateness > noise) {
        s.late_total_ns += lateness;
        s.cost_per_step[a.step] += lateness;
        s.late_ops.push_back({.step = a.step, .group = a.group, .name = a.name, .wait_ns = waits[i],
                              .median_peer_wait_ns = peer_median, .lateness_ns = lateness, .ranks = a.ranks});
      }
      if (spread && i == last) s.votes++;
    }
  }
  std::sort(rep->ops.begin(), rep->ops.end(), [](const OpAlignment& x, const OpAlignment& y) {
    return x.max_wait_ns - x.min_wait_ns > y.max_wait_ns - y.min_wait_ns;
  });
}

SlowRank MakeSlowRank(const ClusterReport& rep, const std::vector<RankState>& state, size_t r, double median_ms) {
  const RankState& s = state[r];
  SlowRank out{.rank = rep.ranks[r].rank, .path = rep.ranks[r].path};
  out.metric_ms = s.wait_total_ns / 1e6;
  out.metric_median_ms = median_ms;
  out.votes = s.votes;
  out.ops_compared = s.ops;
  out.late_ops = s.late_ops;
  std::sort(out.late_ops.begin(), out.late_ops.end(),
            [](const LateOp& a, const LateOp& b) { return a.lateness_ns > b.lateness_ns; });
  if (out.late_ops.size() > 20) out.late_ops.resize(20);
  out.cost_per_step_ns = s.cost_per_step;
  // Mean over the steps the rank has (a step with no late op costs 0).
  std::set<std::string> steps;
  for (const RankStep& st : rep.ranks[r].steps) steps.insert(st.step);
  for (const auto& [step, cost] : s.cost_per_step) steps.insert(step);
  int64_t total = 0;
  for (const auto& [step, cost] : s.cost_per_step) total += cost;
  out.mean_cost_per_step_ns = steps.empty() ? 0 : total / static_cast<int64_t>(steps.size());
  std::vector<double> stages;
  for (size_t i = 0; i < rep.ranks.size(); ++i) {
    if (i != r && !rep.ranks[i].steps.empty()) stages.push_back(MeanOf(rep.ranks[i]).stage);
  }
  double stage = Median(stages);
  out.cost_share_of_step = stage > 0 ? static_cast<double>(out.mean_cost_per_step_ns) / stage : 0;
  out.likely_cause = LikelyCause(rep.ranks, r);
  return out;
}

void FindSlowRanks(ClusterReport* rep, const std::vector<RankState>& state) {
  const size_t n = rep->ranks.size();
  std::vector<size_t> with_ops;
  for (size_t r = 0; r < n; ++r) {
    if (state[r].ops > 0) with_ops.push_back(r);
  }
  bool start_based = false;
  for (size_t r : with_ops) start_based |= state[r].start_based;
  rep->metric = start_based
                    ? "per rank, the total time it would wait in collective ops computed from op start times "
                      "(no communication analysis: needs synchronized clocks); a straggler is a low outlier"
                    : "per rank, the total synchronization wait (ms) over collective ops (send/receive "
                      "excluded); a straggler is a low outlier: its peers waited for it";
  const size_t m = with_ops.size();
  std::vector<double> x;
  for (size_t r : with_ops) x.push_back(state[r].wait_total_ns / 1e6);
  const double median_ms = Median(x);
  // The noise floor of a rank's total lateness: 100 us, or 0.1% of the ranks' median wait total.
  const int64_t late_floor = std::max<int64_t>(100'000, static_cast<int64_t>(median_ms * 1e6 * 0.001));
  if (m < 2) {
    rep->test_note = m == 0 ? "no collective communication ops were aligned across ranks: no straggler analysis"
                            : "a single rank has communication ops: no straggler analysis";
    return;
  }
  if (m == 2) {
    rep->test_note = "2 ranks: no outlier test applies (Dixon needs 3 or more); the straggler, if any, is the "
                     "rank its peer waited for, from the wait evidence alone";
    size_t a = with_ops[0], b = with_ops[1];
    size_t late = state[a].late_total_ns >= state[b].late_total_ns ? a : b;
    size_t other = late == a ? b : a;
    if (state[late].late_total_ns > late_floor && state[late].late_total_ns > state[other].late_total_ns) {
      SlowRank s = MakeSlowRank(*rep, state, late, median_ms);
      s.basis = fmt::format("wait evidence (no outlier test with 2 ranks): rank {} waited {:.3f} ms in total for "
                            "rank {}, which arrived last in {} of {} collective ops",
                            rep->ranks[other].rank, state[late].late_total_ns / 1e6, rep->ranks[late].rank,
                            state[late].votes, state[late].ops);
      rep->slow_ranks.push_back(std::move(s));
    }
    return;
  }
  // n >= 3: Dixon (n <= 100), generalized ESD and MAD, all on the low side.
  DixonResult dixon = DixonQTest(x, DixonSide::kLow);
  const size_t max_out = std::max<size_t>(1, m / 10);
  EsdResult esd = GeneralizedEsdTest(x, max_out, kAlpha, EsdSide::kLow);
  OutlierReport mad = FlagMadOutliers(x, kMadThreshold);
  if (dixon.applicable) rep->tests_applied.push_back(fmt::format("dixon_q_{} (99.5%)", dixon.ratio));
  if (esd.applicable) rep->tests_applied.push_back(fmt::format("generalized_esd (alpha {}, up to {})", kAlpha, max_out));
  if (mad.scale_used > 0) rep->tests_applied.push_back(fmt::format("mad_modified_z (< -{})", kMadThreshold));
  rep->test_note = fmt::format("{} ranks with collective ops: {}{}", m,
                               m <= 100 ? "Dixon's Q at 99.5% (as msprof-analyze), " : "Dixon not applicable (n > 100), ",
                               "generalized ESD at alpha 0.005 and the MAD modified z-score, each on the low side");
  std::set<size_t> candidates;
  if (dixon.applicable && dixon.outlier) candidates.insert(dixon.index);
  for (size_t i : esd.indices) candidates.insert(i);
  for (size_t i : mad.indices) {
    if (x[i] < mad.median) candidates.insert(i);
  }
  for (size_t i : candidates) {
    size_t r = with_ops[i];
    if (state[r].late_total_ns <= late_floor) continue;  // an outlier that made no one wait
    SlowRank s = MakeSlowRank(*rep, state, r, median_ms);
    OutlierTestResult d{.name = dixon.applicable ? fmt::format("dixon_q_{}", dixon.ratio) : "dixon_q",
                        .applicable = dixon.applicable};
    if (dixon.applicable) {
      d.fired = dixon.outlier && dixon.index == i;
      d.critical = dixon.critical;
      d.statistic = dixon.index == i ? dixon.statistic : 0;
      d.detail = dixon.index == i ? fmt::format("ratio {:.4f} vs critical {:.4f} at 99.5% (n={})", dixon.statistic,
                                                dixon.critical, m)
                                  : "tests only the most extreme rank, which is another one";
    } else {
      d.detail = m > 100 ? "n > 100" : "values do not vary";
    }
    OutlierTestResult e{.name = "generalized_esd", .applicable = esd.applicable};
    for (const EsdStep& st : esd.steps) {
      if (st.index != i) continue;
      e.statistic = st.r, e.critical = st.lambda;
    }
    e.fired = std::find(esd.indices.begin(), esd.indices.end(), i) != esd.indices.end();
    e.detail = e.critical > 0 ? fmt::format("R = {:.3f} vs lambda {:.3f} (alpha {}, {} outliers found)", e.statistic,
                                            e.critical, kAlpha, esd.indices.size())
                              : fmt::format("not among the {} most extreme candidates", esd.steps.size());
    OutlierTestResult z{.name = "mad_modified_z", .applicable = mad.scale_used > 0};
    z.critical = -kMadThreshold;
    z.statistic = mad.scale_used > 0 ? (x[i] - mad.median) / mad.scale_used : 0;
    z.fired = std::find(mad.indices.begin(), mad.indices.end(), i) != mad.indices.end() && x[i] < mad.median;
    z.detail = fmt::format("z = {:.2f} (median {:.3f} ms, scale {:.3f} ms)", z.statistic, mad.median, mad.scale_used);
    s.tests = {d, e, z};
    std::string fired;
    for (const auto& t : s.tests) {
      if (t.fired) fired += (fired.empty() ? "" : ", ") + t.name;
    }
    s.basis = fmt::format("{} fired: total synchronization wait {:.3f} ms vs the median {:.3f} ms; peers waited "
                          "{:.3f} ms for it in total; last to arrive in {} of {} collective ops",
                          fired, s.metric_ms, median_ms, state[r].late_total_ns / 1e6, s.votes, s.ops_compared);
    rep->slow_ranks.push_back(std::move(s));
  }
  std::sort(rep->slow_ranks.begin(), rep->slow_ranks.end(),
            [](const SlowRank& a, const SlowRank& b) { return a.mean_cost_per_step_ns > b.mean_cost_per_step_ns; });
}

void AnalyzeLinks(ClusterReport* rep) {
  std::vector<const RankLink*> links;
  bool has_total = false;
  for (const RankSummary& r : rep->ranks) {
    for (const RankLink& l : r.links) has_total |= l.op.ends_with("-total");
  }
  for (const RankSummary& r : rep->ranks) {
    for (const RankLink& l : r.links) {
      if (l.transport.empty() || l.transport == "LOCAL" || l.size_mb <= 0 || l.bandwidth_gbps <= 0) continue;
      if (has_total && !l.op.ends_with("-total")) continue;  // "-total" sums each link over the ops
      links.push_back(&l);
    }
  }
  std::map<std::string, std::vector<const RankLink*>> by_transport;
  for (const RankLink* l : links) by_transport[l->transport].push_back(l);
  for (auto& [transport, v] : by_transport) {
    TransportSummary t{.transport = transport, .links = static_cast<int64_t>(v.size())};
    std::vector<double> bw;
    for (const RankLink* l : v) {
      t.size_mb += l->size_mb, t.time_ms += l->time_ms;
      bw.push_back(l->bandwidth_gbps);
    }
    t.bandwidth_gbps = t.time_ms > 0 ? t.size_mb / t.time_ms : 0;  // MB/ms == GB/s
    t.min_gbps = *std::min_element(bw.begin(), bw.end());
    t.max_gbps = *std::max_element(bw.begin(), bw.end());
    t.median_gbps = Median(bw);
    rep->transports.push_back(t);
    // A slow link: below half the transport's median, or a MAD low outlier below 80% of it.
    OutlierReport mad = v.size() >= 3 ? FlagMadOutliers(bw, kMadThreshold) : OutlierReport{};
    for (size_t i = 0; i < v.size(); ++i) {
      double ratio = t.median_gbps > 0 ? bw[i] / t.median_gbps : 1;
      bool mad_low = std::find(mad.indices.begin(), mad.indices.end(), i) != mad.indices.end() && bw[i] < mad.median;
      if (!(ratio < 0.5 || (mad_low && ratio < 0.8))) continue;
      SlowLink s{.step = v[i]->step, .op = v[i]->op, .transport = transport, .src_rank = v[i]->src_rank,
                 .dst_rank = v[i]->dst_rank, .bandwidth_gbps = bw[i], .median_gbps = t.median_gbps,
                 .ratio = ratio, .size_mb = v[i]->size_mb};
      s.reason = fmt::format("{:.2f} GB/s is {:.0f}% of the {} median {:.2f} GB/s{}", bw[i], ratio * 100, transport,
                             t.median_gbps,
                             mad_low ? fmt::format(" (MAD modified z {:.1f})", (bw[i] - mad.median) / mad.scale_used)
                                     : "");
      rep->slow_links.push_back(std::move(s));
    }
  }
  std::sort(rep->slow_links.begin(), rep->slow_links.end(),
            [](const SlowLink& a, const SlowLink& b) { return a.ratio < b.ratio; });
}

}  // namespace

ClusterReport AnalyzeCluster(std::vector<RankSummary> ranks, std::vector<UnreadableRank> unreadable) {
  ClusterReport rep;
  std::sort(ranks.begin(), ranks.end(), [](const RankSummary& a, const RankSummary& b) {
    if ((a.rank < 0) != (b.rank < 0)) return a.rank >= 0;
    return a.rank != b.rank ? a.rank < b.rank : a.path < b.path;
  });
  // Sorted by (rank, path): the first input with an id is kept, the later ones are left out.
  for (RankSummary& r : ranks) {
    if (r.rank >= 0 && !rep.ranks.empty() && rep.ranks.back().rank == r.rank) {
      rep.duplicates.push_back({.path = r.path, .rank = r.rank, .kept_path = rep.ranks.back().path});
      continue;
    }
    rep.ranks.push_back(std::move(r));
  }
  rep.duplicate_rank_ids = static_cast<int64_t>(rep.duplicates.size());
  std::set<int64_t> loaded, named;
  for (const RankSummary& r : rep.ranks) {
    loaded.insert(r.rank);
    for (const RankLink& l : r.links) named.insert({l.src_rank, l.dst_rank});
  }
  for (int64_t id : named)
    if (id >= 0 && !loaded.count(id)) rep.missing_ranks.push_back(id);
  rep.unreadable = std::move(unreadable);
  std::vector<RankState> state(rep.ranks.size());
  AlignOps(&rep, &state);
  FindSlowRanks(&rep, state);
  AnalyzeLinks(&rep);
  return rep;
}

}  // namespace cprof
