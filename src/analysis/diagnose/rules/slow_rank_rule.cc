// Rule slow_rank: in a trace that holds several ranks' device work (a merged cluster trace: NPU
// or GPU stream tracks whose `rank` differs), the rank whose computation takes longest makes the
// others wait in their collectives. A trace of one rank yields nothing: `cann-profiler cluster`
// compares separate rank traces.
//
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
    if (ranks.size() < 2) return;
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
