// dataloader: steps wait for the input pipeline. The time in each loop iteration (a step plus
// any time before the next step starts, host_step_activity.h) spent fetching the next batch on
// the step's thread: data-loading spans (a DataLoader's `enumerate(DataLoader)#...`
// record_function, the collector's DataLoader.__next__ spans, category "dataloader") plus
// untraced gaps at a step's start whose sampled Python frames are mostly input-pipeline code
// (__getitem__, collate, Dataset, decode, ...). Fires when that is more than 10% of step time.
//
// Confidence (confidence.h):
//  - magnitude   = 1 - 0.10 / (loading time / step time);
//  - support     = n / (n + 3), n = steps whose loading share exceeds 10%;
//  - consistency = n / steps;
//  - specificity = 1.0 when the time is in spans the framework names as data loading; 0.8 when
//    more than half of it is inferred from sampled frames in untraced gaps.
// Saving: loading L and the rest of the step C run one after the other; with k loader workers
// they overlap and the step takes max(L / k, C), so the saving is sum over steps of
// L + C - max(L / k, C), with k = min(4, cores - 1) (at least 1; 4 when the core count is unknown).
#include <fmt/format.h>

#include <algorithm>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/host_step_activity.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rule_util.h"

namespace cprof {
namespace {

using host_rules::Ms;
using host_rules::Pct;

constexpr int64_t kMinGapNs = 200'000;
constexpr double kThreshold = 0.10;

class DataloaderRule final : public Rule {
 public:
  std::string_view name() const override { return "dataloader"; }
  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override;
};

void DataloaderRule::Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
  const Trace& trace = ctx.trace();
  const std::vector<Step>& steps = ctx.steps();
  if (steps.empty()) return;
  const SliceTable& s = trace.slices;
  std::vector<StepHostActivity> act = ComputeStepHostActivity(trace, steps, kMinGapNs);

  int64_t step_total = 0, load_total = 0, span_total = 0, saving = 0, symptomatic = 0;
  const std::optional<int64_t> cores = host_rules::MetadataInt(trace, "cpu_cores");
  const int64_t k = cores ? std::clamp<int64_t>(*cores - 1, 1, 4) : 4;
  std::vector<std::pair<int64_t, uint32_t>> top_spans;  // (dur, row)
  for (const StepHostActivity& a : act) {
    const Step& step = steps[a.step_index];
    auto [b, e] = trace.track_slices(a.thread);
    std::vector<Interval> spans;
    const uint32_t first = static_cast<uint32_t>(
        std::lower_bound(s.ts_ns.begin() + b, s.ts_ns.begin() + e, step.start_ns) - s.ts_ns.begin());
    for (uint32_t r = first; r < e && s.ts_ns[r] < a.end_ns; ++r) {
      if (r == step.slice_row || s.ts_ns[r] < step.start_ns || s.dur_ns[r] <= 0) continue;
      if (!host_rules::IsDataLoaderSpan(trace, r)) continue;
      spans.push_back({s.ts_ns[r], std::min(trace.slice_end(r), a.end_ns)});
      top_spans.emplace_back(s.dur_ns[r], r);
    }
    const int64_t span_ns = IntervalSet::Union(std::move(spans)).Length();
    int64_t gap_ns = 0;
    if (a.leading_gap_ns > 0) {
      FramesInGaps f = FramesInIntervals(trace, a.thread, IntervalSet::Union({a.gaps.parts().front()}));
      int64_t pipeline = 0;
      for (const FrameTime& t : f.frames)
        if (host_rules::IsInputPipelineFrame(t.name) || host_rules::IsInputPipelineFrame(t.caller)) pipeline += t.self_ns;
      if (f.observed_ns > 0 && pipeline * 2 >= f.observed_ns) gap_ns = a.leading_gap_ns;
    }
    const int64_t load = span_ns + gap_ns;
    step_total += a.step_ns;
    load_total += load;
    span_total += span_ns;
    if (a.step_ns > 0 && static_cast<double>(load) / static_cast<double>(a.step_ns) > kThreshold) ++symptomatic;
    const int64_t rest = std::max<int64_t>(0, a.step_ns - load);
    saving += load + rest - std::max(load / k, rest);
  }
  if (step_total <= 0 || load_total <= 0) return;
  const double share = static_cast<double>(load_total) / static_cast<double>(step_total);
  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
  if (terms.magnitude <= 0) return;
  terms.support = SupportFromCount(symptomatic);
  terms.consistency = static_cast<double>(symptomatic) / static_cast<double>(steps.size());
  terms.specificity = span_total * 2 >= load_total ? 1.0 : 0.8;

  Finding f;
  f.category = Category::kDataloader;
  f.device = std::string(DeviceKindId(ctx.device_kind()));
  f.confidence_terms = terms;
  f.confidence = ComputeConfidence(terms);
  f.cost_total_ns = load_total;
  f.cost_per_step_ns = load_total / static_cast<int64_t>(steps.size());
  f.saving_ns = std::min(saving, load_total);
  f.saving_method = fmt::format(
      "Loading (L) and the rest of the step (C) run one after the other; with {} loader worker(s) they overlap and a "
      "step takes max(L/{}, C): saving = sum over steps of L + C - max(L/{}, C){}.",
      k, k, k, cores ? fmt::format(" ({} cores, one kept for the training loop)", *cores) : " (core count unknown: 4 workers)");
  f.title = fmt::format("Steps wait {} of their time ({} per step) for the input pipeline", Pct(share), Ms(f.cost_per_step_ns));
  f.summary = fmt::format(
      "{} of {} steps spend more than {} fetching their batch on the training thread: {} in total. {} of it is in "
      "data-loading spans{}. The batch is built synchronously, so nothing else runs meanwhile.",
      symptomatic, steps.size(), Pct(kThreshold), Ms(load_total), Ms(span_total),
      span_total < load_total ? fmt::format(", {} in untraced gaps where the sampled frames are input-pipeline code",
                                            Ms(load_total - span_total))
                              : "");
  f.metrics = {{"loading_share", share, "ratio"},
               {"loading_ns", static_cast<double>(load_total), "ns"},
               {"loading_per_step_ns", static_cast<double>(f.cost_per_step_ns), "ns"},
               {"loading_in_spans_ns", static_cast<double>(span_total), "ns"},
               {"steps_with_symptom", static_cast<double>(symptomatic), "count"},
               {"assumed_workers", static_cast<double>(k), "count"}};
  std::sort(top_spans.begin(), top_spans.end(), [](const auto& x, const auto& y) { return x.first > y.first; });
  for (size_t i = 0; i < top_spans.size() && f.events.size() < 5; ++i)
    f.events.push_back(ctx.EventRef(top_spans[i].second, fmt::format("a batch fetch of {}", Ms(top_spans[i].first))));
  f.suggestions = {
      {fmt::format("Load batches in {} worker process(es) so loading overlaps the step, keep the workers alive and "
                   "prefetch.", k),
       "code",
       fmt::format("loader = DataLoader(dataset, batch_size=..., num_workers={}, persistent_workers=True,\n"
                   "                    prefetch_factor=2, pin_memory=torch.cuda.is_available())", k)},
      {"Make __getitem__ cheap: parse and decode once (cache preprocessed tensors on disk or in memory) and apply "
       "augmentations to whole batches with tensor operations rather than per value in Python.",
       "code", "samples = torch.load(\"preprocessed.pt\")  # decoded once, offline"},
      {"Measure the loader alone to confirm it is the bottleneck.", "code",
       "t = time.perf_counter()\nfor _ in range(20): next(it)\nprint((time.perf_counter() - t) / 20)"},
  };
  out.push_back(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> MakeDataloaderRule() { return std::make_unique<DataloaderRule>(); }

}  // namespace cprof
