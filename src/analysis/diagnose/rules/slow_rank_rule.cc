// Rule slow_rank: one rank makes the others wait. Two ways to see it:
//
// A. Merged trace (NPU or GPU stream tracks whose `rank` differs): the rank whose computation
//    takes longest. (`cann-profiler cluster` compares separate rank traces.)
// B. One rank's Ascend trace: its HCCL ops wait on each peer's notify (Notify_Wait tasks by peer
//    rank, npu::CommOpWaits). A peer that signals much later than the others is late to the
//    collective. Per op: excess = the longest wait - the median peer's longest wait, charged to
//    that peer. The peer with the most excess is reported when excess / the steps' wall time
//    exceeds 5%.
//    Confidence terms: magnitude = 1 - 0.05 / share; support = n / (n + 3), n = ops where that
//    peer is the late one; consistency = those ops / ops with waits; specificity = 0.7 (a late
//    notify can also be a slow link, or the peer itself waiting for another).
//    Saving: the excess (what this rank would not wait if the peer were on time).
//
// A in detail:
// Per rank: compute = the summed duration of its device tasks on stream tracks (communication
// tracks excluded), inside the window. slowest = the rank with the most; excess = (slowest -
// median) / median. Fires when excess > kThreshold (5%).
// Confidence terms:
//   magnitude   = 1 - 0.05 / excess;
//   support     = n / (n + 3), n = ranks;
//   consistency = 1 (one comparison over the whole window);
//   specificity = 0.8: more computation on one rank makes the others wait at the next
//                 collective, unless they have independent work to fill the gap (inferred).
// Saving: slowest - median compute: the wait the other ranks would lose if the work were
// balanced (every rank at the median).
#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rule.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/npu_rule_support.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.05;

struct RankWork {
  int64_t compute_ns = 0, tasks = 0;
  uint32_t longest = 0;
};

void LatePeer(const DiagnosisContext& ctx, std::vector<Finding>& out) {
  const Trace& t = ctx.trace();
  npu::ArgReader args(t);
  const std::vector<npu::CommOpWait> waits = npu::CommOpWaits(ctx, args);
  std::map<int64_t, int64_t> excess, ops_late;
  int64_t with_waits = 0;
  for (const npu::CommOpWait& w : waits) {
    if (w.late_peer < 0) continue;
    ++with_waits;
    if (w.excess_ns() <= 0) continue;
    excess[w.late_peer] += w.excess_ns();
    ++ops_late[w.late_peer];
  }
  if (excess.empty()) return;
  auto worst = std::max_element(excess.begin(), excess.end(),
                                [](const auto& a, const auto& b) { return a.second < b.second; });
  const int64_t peer = worst->first, late_ns = worst->second;
  int64_t wall = 0;
  for (const Step& s : ctx.steps()) wall += s.dur_ns;
  if (wall <= 0) wall = ctx.span_ns();
  const double share = static_cast<double>(late_ns) / static_cast<double>(wall);

  Finding f;
  f.category = Category::kSlowRank;
  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
  terms.support = SupportFromCount(ops_late[peer]);
  terms.consistency = static_cast<double>(ops_late[peer]) / static_cast<double>(with_waits);
  terms.specificity = 0.7;
  npu::SetConfidence(terms, f);
  if (f.confidence <= 0) return;
  const std::string self = t.MetadataText(meta::kRank);
  f.title = fmt::format("Rank {} reaches the collectives late: rank {} waited {} for it ({} of step time)", peer,
                        self.empty() ? "?" : self, npu::FormatNs(late_ns), npu::Percent(share));
  f.summary = fmt::format(
      "In {} of {} HCCL ops the longest wait is for rank {}'s notify, {} in all beyond what the other peers "
      "took. Rank {} arrives late (more work, a slower input pipeline or host, or a slow link to it); the "
      "ranks that wait show the time as exposed communication.",
      ops_late[peer], with_waits, peer, npu::FormatNs(late_ns), peer);
  npu::SetCost(ctx, late_ns, f);
  f.saving_ns = late_ns;
  f.saving_method = "The waits for this peer beyond the median peer's, per op: lost only while it is late.";
  f.metrics = {{"late_rank", static_cast<double>(peer), ""},
               {"late_wait_ns", static_cast<double>(late_ns), "ns"},
               {"late_wait_fraction", share, "ratio"},
               {"ops_late", static_cast<double>(ops_late[peer]), "count"},
               {"ops_with_waits", static_cast<double>(with_waits), "count"}};
  std::vector<const npu::CommOpWait*> mine;
  for (const npu::CommOpWait& w : waits)
    if (w.late_peer == peer && w.excess_ns() > 0) mine.push_back(&w);
  std::sort(mine.begin(), mine.end(), [](const auto* a, const auto* b) { return a->excess_ns() > b->excess_ns(); });
  for (size_t k = 0; k < mine.size() && k < 4; ++k) {
    f.events.push_back(ctx.EventRef(mine[k]->wait_row, fmt::format("waiting {} for rank {} (median peer {})",
                                                                   npu::FormatNs(mine[k]->max_wait_ns), peer,
                                                                   npu::FormatNs(mine[k]->median_wait_ns))));
    f.events.push_back(ctx.EventRef(mine[k]->op_row, "collective held up by the late rank"));
  }
  f.suggestions.push_back({fmt::format("Profile rank {} in the same steps and compare it with this rank: look for "
                                       "extra computation, data loading or host work before the collective.",
                                       peer),
                           "config",
                           fmt::format("torch_npu.profiler.profile(..., schedule=torch_npu.profiler.schedule(wait=0, "
                                       "warmup=10, active=1, skip_first=40))  # on rank {} too",
                                       peer)});
  f.suggestions.push_back({"Compare every rank's step breakdown side by side to confirm which rank is slow.",
                           "command", "cann-profiler cluster <profiling dir holding every rank's *_ascend_pt> --format md"});
  out.push_back(std::move(f));
}

class SlowRankRule final : public Rule {
 public:
  std::string_view name() const override { return "slow_rank"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    const Trace& t = ctx.trace();
    std::map<int64_t, RankWork> ranks;
    bool npu = false;
    for (uint32_t track = 0; track < t.tracks.size(); ++track) {
      const TrackKind kind = t.tracks.kind[track];
      if (kind != TrackKind::kNpuStream && kind != TrackKind::kGpuStream) continue;
      const int64_t rank = t.tracks.rank[track];
      if (rank < 0) continue;
      npu = npu || kind == TrackKind::kNpuStream;
      RankWork& w = ranks[rank];
      auto [b, e] = t.track_slices(TrackId{track});
      for (uint32_t r = b; r < e; ++r) {
        if (!ctx.InWindow(r) || t.slices.dur_ns[r] <= 0) continue;
        w.compute_ns += t.slices.dur_ns[r];
        if (w.tasks == 0 || t.slices.dur_ns[r] > t.slices.dur_ns[w.longest]) w.longest = r;
        ++w.tasks;
      }
    }
    if (ranks.size() < 2) {
      if (npu::IsNpuTrace(t)) LatePeer(ctx, out);
      return;
    }
    std::vector<int64_t> sorted;
    for (const auto& [rank, w] : ranks) sorted.push_back(w.compute_ns);
    std::sort(sorted.begin(), sorted.end());
    const int64_t median = sorted[(sorted.size() - 1) / 2];
    auto slow = std::max_element(ranks.begin(), ranks.end(),
                                 [](const auto& a, const auto& b) { return a.second.compute_ns < b.second.compute_ns; });
    if (median <= 0) return;
    const int64_t gap = slow->second.compute_ns - median;
    const double excess = static_cast<double>(gap) / static_cast<double>(median);

    Finding f;
    f.category = Category::kSlowRank;
    ConfidenceTerms terms;
    terms.magnitude = MagnitudeOverThreshold(excess, kThreshold);
    terms.support = SupportFromCount(static_cast<int64_t>(ranks.size()));
    terms.consistency = 1.0;
    terms.specificity = 0.8;
    f.confidence_terms = terms;
    f.confidence = ComputeConfidence(terms);
    f.device = npu ? "npu" : "gpu";
    if (f.confidence <= 0) return;
    f.title = fmt::format("Rank {} computes {} longer than the median rank ({} more)", slow->first,
                          npu::Percent(excess), npu::FormatNs(gap));
    f.summary = fmt::format(
        "Of {} ranks, rank {} spends {} on device work against a median of {}; the other ranks wait for it "
        "at every collective.",
        ranks.size(), slow->first, npu::FormatNs(slow->second.compute_ns), npu::FormatNs(median));
    npu::SetCost(ctx, gap, f);
    f.saving_ns = gap;
    f.saving_method = "Slowest rank's device time minus the median rank's: the others' wait if work were balanced.";
    f.metrics = {{"ranks", static_cast<double>(ranks.size()), "count"},
                 {"slow_rank", static_cast<double>(slow->first), ""},
                 {"slow_rank_compute_ns", static_cast<double>(slow->second.compute_ns), "ns"},
                 {"median_compute_ns", static_cast<double>(median), "ns"},
                 {"excess_fraction", excess, "ratio"}};
    f.events.push_back(ctx.EventRef(slow->second.longest, fmt::format("longest task on rank {}", slow->first)));
    f.suggestions.push_back({"Balance the work: check the slow rank's input (batch size, sequence lengths), its "
                             "data loader and host load; compare the ranks side by side.",
                             "command", "cann-profiler cluster <rank0 result dir> <rank1 result dir> --format md"});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeSlowRankRule() { return std::make_unique<SlowRankRule>(); }

}  // namespace cprof
