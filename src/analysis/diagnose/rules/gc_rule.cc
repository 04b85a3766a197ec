// gc: Python garbage-collection pauses. Read from gc spans on host threads (the collector's
// `gc.callbacks` spans, category "gc", named "gc.collect genN"; any slice of category "gc" or a
// name starting "gc.collect"). Fires when the pauses take more than 5% of step time (of the
// analysed span when the trace has no steps).
//
// Confidence (confidence.h):
//  - magnitude   = 1 - 0.05 / (pause time / step time);
//  - support     = n / (n + 3), n = collections of 1 ms or more;
//  - consistency = steps with a pause of 1 ms or more / steps (1 without steps);
//  - specificity = 1.0: the spans are the collector's own callbacks, not an inference.
// Saving: 90% of full (generation 2) collection time — gc.freeze() after start-up takes the
// long-lived objects out of every later scan, and dropping explicit per-step gc.collect() calls
// removes them — plus 50% of generation 0/1 time (higher thresholds, fewer reference cycles).
#include <fmt/format.h>

#include <algorithm>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/host_step_activity.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rule_util.h"
#include "stats/interval_set.h"

namespace cprof {
namespace {

using host_rules::Ms;
using host_rules::Pct;

constexpr double kThreshold = 0.05;
constexpr int64_t kNoticeableNs = 1'000'000;

class GcRule final : public Rule {
 public:
  std::string_view name() const override { return "gc"; }
  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override;
};

bool IsGcSlice(const Trace& trace, uint32_t row) {
  if (trace.Str(trace.slices.category_id[row]) == "gc") return true;
  std::string_view n = trace.Str(trace.slices.name_id[row]);
  return n.starts_with("gc.collect") || n.starts_with("gc_collect");
}

bool IsFullCollection(std::string_view name) {
  return name.find("gen2") != std::string_view::npos || name.find("generation 2") != std::string_view::npos;
}

void GcRule::Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
  const Trace& trace = ctx.trace();
  const SliceTable& s = trace.slices;
  const std::vector<Step>& steps = ctx.steps();
  std::vector<uint32_t> rows;
  std::vector<Interval> spans;
  int64_t full_ns = 0, young_ns = 0, full_count = 0, noticeable = 0;
  for (uint32_t r = 0; r < s.size(); ++r) {
    if (s.dur_ns[r] <= 0 || !ctx.InWindow(r) || !IsGcSlice(trace, r)) continue;
    if (trace.tracks.kind[Index(s.track_id[r])] != TrackKind::kThread) continue;
    rows.push_back(r);
    spans.push_back({s.ts_ns[r], trace.slice_end(r)});
    if (IsFullCollection(trace.Str(s.name_id[r]))) {
      full_ns += s.dur_ns[r];
      ++full_count;
    } else {
      young_ns += s.dur_ns[r];
    }
    if (s.dur_ns[r] >= kNoticeableNs) ++noticeable;
  }
  if (rows.empty()) return;
  const IntervalSet gc = IntervalSet::Union(std::move(spans));

  int64_t base = 0, in_steps = 0, steps_with_pause = 0;
  if (!steps.empty()) {
    // Per loop iteration (a step and the time before the next one, host_step_activity.h).
    std::vector<int64_t> iter_end(steps.size());
    for (size_t i = 0; i < steps.size(); ++i) iter_end[i] = IterationEndNs(trace, steps, i);
    std::vector<int64_t> per_step(steps.size(), 0);
    for (uint32_t r : rows) {
      if (s.ts_ns[r] < steps.front().start_ns) continue;
      auto it = std::upper_bound(steps.begin(), steps.end(), s.ts_ns[r],
                                 [](int64_t t, const Step& st) { return t < st.start_ns; });
      const size_t k = static_cast<size_t>(it - steps.begin()) - 1;
      if (s.ts_ns[r] >= iter_end[k]) continue;
      per_step[k] = std::max(per_step[k], s.dur_ns[r]);
    }
    for (size_t i = 0; i < steps.size(); ++i) {
      base += iter_end[i] - steps[i].start_ns;
      in_steps += gc.Clip(steps[i].start_ns, iter_end[i]).Length();
      if (per_step[i] >= kNoticeableNs) ++steps_with_pause;
    }
  } else {
    base = ctx.span_ns();
    in_steps = gc.Length();
  }
  if (base <= 0 || in_steps <= 0) return;
  const double share = static_cast<double>(in_steps) / static_cast<double>(base);
  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
  if (terms.magnitude <= 0) return;
  terms.support = SupportFromCount(noticeable);
  terms.consistency = steps.empty() ? 1.0 : static_cast<double>(steps_with_pause) / static_cast<double>(steps.size());
  terms.specificity = 1.0;

  Finding f;
  f.category = Category::kGc;
  f.device = std::string(DeviceKindId(ctx.device_kind()));
  f.confidence_terms = terms;
  f.confidence = ComputeConfidence(terms);
  f.cost_total_ns = in_steps;
  f.cost_per_step_ns = steps.empty() ? 0 : in_steps / static_cast<int64_t>(steps.size());
  const double full_share = (full_ns + young_ns) > 0 ? static_cast<double>(full_ns) / static_cast<double>(full_ns + young_ns) : 0;
  f.saving_ns = std::min<int64_t>(in_steps, static_cast<int64_t>(static_cast<double>(in_steps) * (0.9 * full_share + 0.5 * (1 - full_share))));
  f.saving_method =
      "90% of full (generation 2) collection time (gc.freeze() after start-up, no explicit per-step gc.collect()) "
      "plus 50% of generation 0/1 time (higher thresholds, fewer reference cycles), applied to the pause time inside steps.";
  int64_t longest = 0;
  uint32_t longest_row = rows.front();
  for (uint32_t r : rows)
    if (s.dur_ns[r] > longest) longest = s.dur_ns[r], longest_row = r;
  f.title = fmt::format("Python garbage collection pauses take {} of step time ({} collections, longest {})", Pct(share),
                        rows.size(), Ms(longest));
  f.summary = fmt::format(
      "The garbage collector ran {} times ({} full collections) for {} in total; {} of it inside steps{}. Full "
      "collections walk every tracked object, so their cost grows with the number of live Python objects; reference "
      "cycles make the collector run and are only freed by it.",
      rows.size(), full_count, Ms(gc.Length()), Ms(in_steps),
      steps.empty() ? "" : fmt::format(", {} per step on average, in {} of {} steps", Ms(f.cost_per_step_ns), steps_with_pause, steps.size()));
  f.metrics = {{"gc_share", share, "ratio"},
               {"gc_ns", static_cast<double>(in_steps), "ns"},
               {"collections", static_cast<double>(rows.size()), "count"},
               {"full_collections", static_cast<double>(full_count), "count"},
               {"full_collection_ns", static_cast<double>(full_ns), "ns"},
               {"longest_pause_ns", static_cast<double>(longest), "ns"}};
  f.events.push_back(ctx.EventRef(longest_row, "the longest pause"));
  std::vector<uint32_t> by_dur = rows;
  std::sort(by_dur.begin(), by_dur.end(), [&](uint32_t a, uint32_t b) { return s.dur_ns[a] > s.dur_ns[b]; });
  for (uint32_t r : by_dur) {
    if (f.events.size() >= 5) break;
    if (r != longest_row) f.events.push_back(ctx.EventRef(r, "a long pause"));
  }
  f.suggestions = {
      {"Freeze the objects created at start-up (model, dataset index, caches) so later collections skip them.", "code",
       "import gc\n# after building the model, datasets and caches, before the training loop:\ngc.freeze()"},
      {"Remove explicit per-step gc.collect() calls; if memory must be bounded, collect every few hundred steps.",
       "code", "if step % 500 == 0:\n    gc.collect()"},
      {"Let young collections run less often, and avoid parent<->child reference cycles (use weakref for back "
       "references) so objects are freed by reference counting.",
       "code", "gc.set_threshold(50_000, 20, 100)\nself.parent = weakref.ref(parent)"},
  };
  out.push_back(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> MakeGcRule() { return std::make_unique<GcRule>(); }

}  // namespace cprof
