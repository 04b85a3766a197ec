// Operator-level trace diff: alignment, deltas, per-op significance, category breakdown.
#include "analysis/compare/trace_diff.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include <fmt/core.h>

#include "analysis/compare/op_instances.h"
#include "stats/effect_size.h"
#include "stats/mann_whitney.h"
#include "stats/multiple_testing.h"
#include "stats/quantile.h"

namespace cprof {
namespace {

struct SideData {
  const Trace* trace = nullptr;
  TimeWindow window;
  std::vector<Step> steps;
  OpInstances ops;
};

// What one side contributes to one diff row while rows are being built.
struct SideAccum {
  std::vector<int64_t> durations;    // in sequence order
  std::vector<int64_t> timestamps;
  std::vector<double> per_step_ns;   // one per step of that side
  int64_t self_ns = 0;
  int64_t max_ns = -1;
  int64_t max_ts_ns = 0;
  uint32_t max_row = 0;
  std::vector<std::string> names;
};

void AddName(std::vector<std::string>& names, const std::string& n) {
  if (std::find(names.begin(), names.end(), n) == names.end()) names.push_back(n);
}

OpSideStats Finish(SideAccum& a) {
  OpSideStats s;
  s.count = static_cast<int64_t>(a.durations.size());
  if (s.count == 0) return s;
  for (int64_t d : a.durations) s.total_ns += d;
  s.self_ns = a.self_ns;
  s.mean_ns = static_cast<double>(s.total_ns) / static_cast<double>(s.count);
  s.p50_ns = Quantile(a.durations, 0.5);
  s.max_ns = a.max_ns;
  s.max_ts_ns = a.max_ts_ns;
  s.max_row = a.max_row;
  return s;
}

std::vector<CategoryDiff> CategoryTimes(const SideData& b, const SideData& t) {
  std::map<std::string, std::pair<int64_t, int64_t>> acc;
  auto add = [&](const SideData& side, bool is_target) {
    const Trace& tr = *side.trace;
    const size_t n = tr.slices.size();
    std::vector<int64_t> self(n);
    for (size_t r = 0; r < n; ++r) self[r] = std::max<int64_t>(0, tr.slices.dur_ns[r]);
    for (size_t r = 0; r < n; ++r)
      if (tr.slices.parent_id[r] != kNoSlice) self[Index(tr.slices.parent_id[r])] -= std::max<int64_t>(0, tr.slices.dur_ns[r]);
    std::unordered_map<uint32_t, int64_t> by_cat;
    for (size_t r = 0; r < n; ++r) {
      const TrackKind kind = tr.tracks.kind[Index(tr.slices.track_id[r])];
      if (kind != TrackKind::kThread && !IsDeviceTrack(kind)) continue;
      if (tr.slices.dur_ns[r] < 0 || !side.window.Contains(tr.slices.ts_ns[r])) continue;
      by_cat[Index(tr.slices.category_id[r])] += std::max<int64_t>(0, self[r]);
    }
    for (auto [cat, ns] : by_cat) {
      std::string name(tr.Str(StringId{cat}));
      if (name.empty()) name = "(none)";
      (is_target ? acc[name].second : acc[name].first) += ns;
    }
  };
  add(b, false);
  add(t, true);
  std::vector<CategoryDiff> out;
  for (auto& [name, v] : acc) out.push_back({name, v.first, v.second});
  std::sort(out.begin(), out.end(), [](const CategoryDiff& x, const CategoryDiff& y) {
    return x.baseline_ns + x.target_ns > y.baseline_ns + y.target_ns;
  });
  return out;
}

int64_t Span(const Trace& t, const TimeWindow& w) {
  const int64_t s = std::max(t.start_ns, w.start_ns);
  const int64_t e = std::min(t.end_ns, w.end_ns);
  return std::max<int64_t>(0, e - s);
}

}  // namespace

std::string_view OpPresenceName(OpPresence p) {
  switch (p) {
    case OpPresence::kBoth: return "both";
    case OpPresence::kNew: return "new";
    case OpPresence::kVanished: return "vanished";
  }
  return "?";
}

TraceDiff DiffTraces(const Trace& baseline, const Trace& target, const TraceDiffOptions& options) {
  TraceDiff d;
  SideData sides[2];
  const Trace* traces[2] = {&baseline, &target};
  const TimeWindow windows[2] = {options.baseline_window, options.target_window};
  TraceSideSummary* summaries[2] = {&d.baseline, &d.target};
  for (int s = 0; s < 2; ++s) {
    sides[s].trace = traces[s];
    sides[s].window = windows[s];
    sides[s].steps = DetectSteps(*traces[s], windows[s]);
    sides[s].ops = CollectOpInstances(*traces[s], windows[s], sides[s].steps);
    summaries[s]->source_format = traces[s]->MetadataText(meta::kSourceFormat);
    summaries[s]->span_ns = Span(*traces[s], windows[s]);
    summaries[s]->op_instances = static_cast<int64_t>(sides[s].ops.rows.size());
    summaries[s]->steps = sides[s].steps;
    summaries[s]->gpu = ComputeGpuTimeline(*traces[s], windows[s]);
  }

  // Rows keyed by (canonical name, shapes, device).
  std::map<std::tuple<std::string, std::string, bool>, size_t> row_of;
  std::vector<std::array<SideAccum, 2>> acc;
  for (int s = 0; s < 2; ++s) {
    const OpInstances& ops = sides[s].ops;
    std::vector<size_t> row_for_key(ops.keys.size());
    for (size_t k = 0; k < ops.keys.size(); ++k) {
      const OpKeyInfo& info = ops.keys[k];
      std::string name = info.name;
      std::string shapes = info.shapes;
      if (options.op_map) {
        name = options.op_map->Apply(s == 0 ? OpMap::Side::kBaseline : OpMap::Side::kTarget, info.name);
        if (name != info.name) shapes.clear();  // shapes are not comparable across frameworks
      }
      auto [it, inserted] = row_of.try_emplace({name, shapes, info.device}, d.ops.size());
      if (inserted) {
        OpDiff row;
        row.name = name;
        row.shapes = shapes;
        row.device = info.device;
        row.category = info.category;
        d.ops.push_back(std::move(row));
        acc.emplace_back();
      }
      row_for_key[k] = it->second;
      AddName(s == 0 ? d.ops[it->second].baseline_names : d.ops[it->second].target_names, info.name);
    }
    for (auto& a : acc) a[s].per_step_ns.assign(sides[s].steps.size(), 0.0);
    for (const OpInstance& op : ops.rows) {
      SideAccum& a = acc[row_for_key[op.key]][s];
      a.durations.push_back(op.dur_ns);
      a.timestamps.push_back(op.ts_ns);
      a.self_ns += op.self_ns;
      if (op.dur_ns > a.max_ns) {
        a.max_ns = op.dur_ns;
        a.max_ts_ns = op.ts_ns;
        a.max_row = op.row;
      }
      if (op.step >= 0) a.per_step_ns[static_cast<size_t>(op.step)] += static_cast<double>(op.dur_ns);
    }
  }
  // Rows created by the target leave the baseline's per-step vectors sized 0: fix them up.
  for (auto& a : acc)
    for (int s = 0; s < 2; ++s) a[s].per_step_ns.resize(sides[s].steps.size(), 0.0);

  const size_t nb_steps = sides[0].steps.size(), nt_steps = sides[1].steps.size();
  const double step_scale =
      nb_steps > 0 && nt_steps > 0 ? static_cast<double>(nb_steps) / static_cast<double>(nt_steps) : 1.0;
  if (nb_steps != nt_steps && nb_steps > 0 && nt_steps > 0) {
    d.notes.push_back(fmt::format("the baseline has {} steps and the target {}: op time changes are ranked per "
                                  "step (target scaled by {:.3f})",
                                  nb_steps, nt_steps, step_scale));
  }

  std::vector<double> p_tested;
  std::vector<size_t> tested_rows;
  for (size_t i = 0; i < d.ops.size(); ++i) {
    OpDiff& row = d.ops[i];
    std::array<SideAccum, 2>& a = acc[i];
    row.baseline = Finish(a[0]);
    row.target = Finish(a[1]);
    row.presence = row.baseline.count == 0 ? OpPresence::kNew
                   : row.target.count == 0 ? OpPresence::kVanished
                                           : OpPresence::kBoth;
    row.delta_count = row.target.count - row.baseline.count;
    row.delta_total_ns = row.target.total_ns - row.baseline.total_ns;
    row.delta_self_ns = row.target.self_ns - row.baseline.self_ns;
    row.delta_self_norm_ns = static_cast<double>(row.target.self_ns) * step_scale - static_cast<double>(row.baseline.self_ns);
    row.delta_total_pct = row.presence == OpPresence::kBoth && row.baseline.total_ns > 0
                              ? 100.0 * static_cast<double>(row.delta_total_ns) / static_cast<double>(row.baseline.total_ns)
                              : std::numeric_limits<double>::quiet_NaN();

    // Significance.
    std::vector<double> xb, xt;
    if (static_cast<int64_t>(nb_steps) >= options.min_samples && static_cast<int64_t>(nt_steps) >= options.min_samples) {
      xb = a[0].per_step_ns;
      xt = a[1].per_step_ns;
      row.test_unit = "per-step total";
    } else if (row.baseline.count >= options.min_samples && row.target.count >= options.min_samples) {
      xb.assign(a[0].durations.begin(), a[0].durations.end());
      xt.assign(a[1].durations.begin(), a[1].durations.end());
      row.test_unit = "per-instance";
    }
    if (!xb.empty() && !xt.empty()) {
      const MannWhitneyResult u = MannWhitneyU(xt, xb);
      row.tested = true;
      row.n_baseline = static_cast<int64_t>(xb.size());
      row.n_target = static_cast<int64_t>(xt.size());
      row.p_value = u.p_value;
      row.hodges_lehmann_ns = HodgesLehmannShift(xb, xt);
      row.cliffs_delta = CliffsDelta(xb, xt);
      p_tested.push_back(u.p_value);
      tested_rows.push_back(i);
    }

    // Sequence alignment: k-th instance with k-th instance.
    if (row.presence == OpPresence::kBoth && row.baseline.count == row.target.count) {
      row.sequence_aligned = true;
      int64_t best = -1;
      for (size_t k = 0; k < a[0].durations.size(); ++k) {
        const int64_t change = std::llabs(a[1].durations[k] - a[0].durations[k]);
        if (change > best) {
          best = change;
          row.seq_index = static_cast<int64_t>(k);
        }
      }
      const size_t k = static_cast<size_t>(row.seq_index);
      row.seq_baseline_ts_ns = a[0].timestamps[k];
      row.seq_target_ts_ns = a[1].timestamps[k];
      row.seq_baseline_dur_ns = a[0].durations[k];
      row.seq_target_dur_ns = a[1].durations[k];
    }
  }
  const std::vector<double> adjusted = BenjaminiHochbergAdjust(p_tested);
  for (size_t j = 0; j < tested_rows.size(); ++j) {
    OpDiff& row = d.ops[tested_rows[j]];
    row.p_adjusted = adjusted[j];
    row.significant = adjusted[j] < options.alpha;
    d.significant_ops += row.significant ? 1 : 0;
  }

  std::sort(d.ops.begin(), d.ops.end(), [](const OpDiff& x, const OpDiff& y) {
    const double ax = std::fabs(x.delta_self_norm_ns), ay = std::fabs(y.delta_self_norm_ns);
    if (ax != ay) return ax > ay;
    return std::tie(x.name, x.shapes, x.device) < std::tie(y.name, y.shapes, y.device);
  });
  for (size_t i = 0; i < d.ops.size(); ++i) {
    const OpDiff& row = d.ops[i];
    d.new_ops += row.presence == OpPresence::kNew;
    d.vanished_ops += row.presence == OpPresence::kVanished;
    if (row.delta_self_norm_ns > 0 && d.top_regressions.size() < options.top_n) d.top_regressions.push_back(i);
    if (row.delta_self_norm_ns < 0 && d.top_improvements.size() < options.top_n) d.top_improvements.push_back(i);
  }

  d.categories = CategoryTimes(sides[0], sides[1]);

  if (nb_steps >= 2 && nt_steps >= 2) {
    std::vector<double> sb, st;
    for (const Step& s : sides[0].steps) sb.push_back(static_cast<double>(s.dur_ns) / 1e6);
    for (const Step& s : sides[1].steps) st.push_back(static_cast<double>(s.dur_ns) / 1e6);
    CompareOptions co;
    co.alpha = options.alpha;
    co.bootstrap.seed = options.seed;
    co.bootstrap.resamples = 4999;
    d.step_time = CompareSamples(sb, st, co);
  } else {
    d.notes.push_back(fmt::format("steps: {} in the baseline, {} in the target; the step-time comparison needs at "
                                  "least 2 on each side",
                                  nb_steps, nt_steps));
  }
  if (nb_steps > 0 && nt_steps > 0 && (static_cast<int64_t>(nb_steps) < options.min_samples ||
                                       static_cast<int64_t>(nt_steps) < options.min_samples)) {
    d.notes.push_back(fmt::format("fewer than {} steps on a side: op significance uses single instance durations, "
                                  "which are not independent (instances of one step share its conditions)",
                                  options.min_samples));
  }
  return d;
}

}  // namespace cprof
