// host_gap: steps (and the device, when there is one) wait on untraced host work — Python
// between operators, logging, metric computation — seen as time inside a step on the step's
// thread that no traced event covers.
//
// Measured per step (host_step_activity.h): gaps of at least 200 us on the step's thread
// (shorter ones are dispatch cost, launch_overhead's). A leading gap in which the sampled Python
// frames are mostly input-pipeline code is the dataloader rule's and is left out here. On traces
// with a device, only the part of a gap during which the device is idle costs anything.
// Fires when the gap time is more than 15% of the step time.
//
// Confidence (confidence.h):
//  - magnitude   = 1 - 0.15 / (gap time / step time);
//  - support     = n / (n + 3), n = steps whose gap share exceeds 15%;
//  - consistency = n / steps;
//  - specificity = 1.0 when sampled frames (Python or native) cover at least half of the gap
//    time, so the finding names the code; 0.7 when the gap is only inferred from missing events;
//    times, when CPU samples exist, the thread's running share in the gaps over its running share
//    in traced step time (floor 0.3): a thread that waits in the gaps (for the GIL, a lock, I/O) is
//    less likely host work to move than one that computes.
// Saving: 80% of the gap time — the work moves off the step (done every N steps, vectorized or
// asynchronous); a fifth is kept because some host work per step is usually needed — times the
// running ratio above when CPU samples exist: time the thread spent waiting in the gaps (GIL,
// locks, a loaded machine) is not host work that can be moved.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/host_step_activity.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rule_util.h"

namespace cprof {
namespace {

using host_rules::Ms;
using host_rules::Pct;

constexpr int64_t kMinGapNs = 200'000;
constexpr double kThreshold = 0.15;
constexpr double kSavingShare = 0.8;

class HostGapRule final : public Rule {
 public:
  std::string_view name() const override { return "host_gap"; }
  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override;
};

// Whether most of the sampled time in `gap` was input-pipeline code.
bool IsInputPipelineGap(const Trace& trace, TrackId thread, const Interval& gap) {
  FramesInGaps f = FramesInIntervals(trace, thread, IntervalSet::Union({gap}));
  if (f.observed_ns <= 0) return false;
  int64_t pipeline = 0;
  for (const FrameTime& t : f.frames)
    if (host_rules::IsInputPipelineFrame(t.name) || host_rules::IsInputPipelineFrame(t.caller)) pipeline += t.self_ns;
  return pipeline * 2 >= f.observed_ns;
}

void HostGapRule::Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
  const Trace& trace = ctx.trace();
  const std::vector<Step>& steps = ctx.steps();
  if (steps.empty()) return;
  std::vector<StepHostActivity> act = ComputeStepHostActivity(trace, steps, kMinGapNs);
  const bool has_device = ctx.device_timeline().has_value();

  // Traced work on other host threads: a step thread that waits for it (the autograd engine's
  // device threads, a pin-memory thread, a worker pool) is not running untraced host work.
  IntervalSet elsewhere;
  {
    std::vector<Interval> busy;
    std::vector<bool> is_step_thread(trace.tracks.size(), false);
    for (const StepHostActivity& a : act) is_step_thread[Index(a.thread)] = true;
    const SliceTable& s = trace.slices;
    for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
      if (is_step_thread[t] || trace.tracks.kind[t] != TrackKind::kThread) continue;
      auto [b, e] = trace.track_slices(TrackId{t});
      for (uint32_t r = b; r < e; ++r) {
        if (s.depth[r] != 0 || s.dur_ns[r] <= 0) continue;
        if (trace.Str(s.category_id[r]) == "python_function") break;  // sampled frames: evidence, not work
        busy.push_back({s.ts_ns[r], trace.slice_end(r)});
      }
    }
    elsewhere = IntervalSet::Union(std::move(busy));
  }

  int64_t step_total = 0, gap_total = 0;
  int64_t symptomatic = 0;
  std::vector<std::pair<int64_t, size_t>> worst;  // (gap ns, step index)
  std::map<TrackId, std::vector<Interval>> gaps_by_thread;
  for (StepHostActivity& a : act) {
    IntervalSet gaps = a.gaps;
    if (a.leading_gap_ns > 0 && IsInputPipelineGap(trace, a.thread, gaps.parts().front()))
      gaps = gaps.Minus(IntervalSet::Union({gaps.parts().front()}));
    if (!elsewhere.empty()) gaps = gaps.Minus(elsewhere);
    if (has_device) gaps = gaps.Minus(ctx.device_intervals().all);
    const int64_t g = gaps.Length();
    step_total += a.step_ns;
    gap_total += g;
    if (a.step_ns > 0 && static_cast<double>(g) / static_cast<double>(a.step_ns) > kThreshold) ++symptomatic;
    worst.emplace_back(g, a.step_index);
    auto& v = gaps_by_thread[a.thread];
    v.insert(v.end(), gaps.parts().begin(), gaps.parts().end());
  }
  if (step_total <= 0 || gap_total <= 0) return;
  const double share = static_cast<double>(gap_total) / static_cast<double>(step_total);

  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
  if (terms.magnitude <= 0) return;
  terms.support = SupportFromCount(symptomatic);
  terms.consistency = static_cast<double>(symptomatic) / static_cast<double>(steps.size());

  // What ran in the gaps: the thread with the most gap time.
  TrackId thread = kNoTrack;
  IntervalSet thread_gaps;
  for (auto& [t, v] : gaps_by_thread) {
    IntervalSet s = IntervalSet::Union(v);
    if (s.Length() > thread_gaps.Length()) thread = t, thread_gaps = std::move(s);
  }
  FramesInGaps frames = FramesInIntervals(trace, thread, thread_gaps);
  const bool named = frames.observed_ns * 2 >= thread_gaps.Length() && !frames.frames.empty();
  // Was the thread computing in the gaps, or waiting (GIL, a lock, sleep)? CPU samples count only
  // running time; compare the running share in the gaps with that in the traced step time, which
  // takes out a machine that is simply busy with other processes.
  std::optional<double> running_ratio;
  {
    std::vector<Interval> step_parts;
    for (const StepHostActivity& a : act)
      if (a.thread == thread) step_parts.push_back({steps[a.step_index].start_ns, steps[a.step_index].end_ns()});
    const IntervalSet traced = IntervalSet::Union(std::move(step_parts)).Minus(thread_gaps);
    std::optional<int64_t> in_gaps = OnCpuNs(trace, thread, thread_gaps);
    std::optional<int64_t> in_traced = OnCpuNs(trace, thread, traced);
    if (in_gaps && in_traced && *in_traced > 0 && traced.Length() > 0) {
      const double gap_share = static_cast<double>(*in_gaps) / static_cast<double>(thread_gaps.Length());
      const double traced_share = static_cast<double>(*in_traced) / static_cast<double>(traced.Length());
      running_ratio = std::min(1.0, gap_share / traced_share);
    }
  }
  terms.specificity = (named ? 1.0 : 0.7) * (running_ratio ? std::max(0.3, *running_ratio) : 1.0);

  Finding f;
  f.category = Category::kHostGap;
  f.device = std::string(DeviceKindId(ctx.device_kind()));
  f.confidence_terms = terms;
  f.confidence = ComputeConfidence(terms);
  f.cost_total_ns = gap_total;
  f.cost_per_step_ns = gap_total / static_cast<int64_t>(steps.size());
  f.saving_ns = static_cast<int64_t>(kSavingShare * running_ratio.value_or(1.0) * static_cast<double>(gap_total));
  f.saving_method = has_device
                        ? "80% of the time inside steps when neither a traced host event nor the device was busy"
                        : "80% of the untraced time inside steps (gaps of 200 us or more on the step's thread)";
  f.saving_method += running_ratio ? fmt::format(", times {:.2f}, the thread's running share in the gaps relative to traced "
                                                 "time (only host work that runs can be moved; waiting is another cause's)",
                                                 *running_ratio)
                                   : std::string();
  f.saving_method += ": moving that host work off the step's critical path removes it; a fifth is assumed to stay.";
  f.title = fmt::format("{} of step time ({} per step) is untraced host work{}", Pct(share), Ms(f.cost_per_step_ns),
                        has_device ? " while the device idles" : "");
  std::string top;
  for (size_t i = 0; i < frames.frames.size() && i < 3; ++i) {
    const FrameTime& t = frames.frames[i];
    if (!top.empty()) top += "; ";
    top += fmt::format("{} ({}{})", t.name, Ms(t.self_ns), t.caller.empty() ? "" : ", called from " + t.caller);
  }
  const bool waiting = running_ratio && *running_ratio < 0.5;
  f.summary = fmt::format(
      "In {} of {} steps more than {} of the step passes on the step's thread with no operator or span running: "
      "{} in total, {} per step on average.{} {}",
      symptomatic, steps.size(), Pct(kThreshold), Ms(gap_total), Ms(f.cost_per_step_ns),
      waiting ? fmt::format(" CPU samples show the thread running only {} as much in the gaps as in traced time: it "
                            "mostly waited (GIL, a lock, sleep, I/O) rather than computed.",
                            Pct(*running_ratio))
              : std::string(),
      top.empty() ? std::string("No sampled frames cover the gaps; trace with --sampling_rate to see the code.")
                  : (frames.from_python ? "Sampled Python frames in the gaps: " : "CPU samples in the gaps: ") + top + ".");
  f.metrics = {{"untraced_share", share, "ratio"},
               {"untraced_ns", static_cast<double>(gap_total), "ns"},
               {"untraced_per_step_ns", static_cast<double>(f.cost_per_step_ns), "ns"},
               {"steps_with_symptom", static_cast<double>(symptomatic), "count"},
               {"running_in_gaps_vs_traced", running_ratio.value_or(-1), "ratio"},
               {"sampled_coverage", thread_gaps.Length() > 0 ? static_cast<double>(frames.observed_ns) / static_cast<double>(thread_gaps.Length()) : 0.0, "ratio"}};

  std::sort(worst.begin(), worst.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  for (size_t i = 0; i < worst.size() && i < 5 && worst[i].first > 0; ++i) {
    const Step& s = steps[worst[i].second];
    f.events.push_back(ctx.EventRef(s.slice_row, fmt::format("step {}: {} untraced", s.id, Ms(worst[i].first))));
  }
  // The sampled frames themselves, so the report can jump to the code.
  const TrackId py = PythonFrameTrack(trace, thread);
  if (py != kNoTrack) {
    auto [b, e] = trace.track_slices(py);
    for (size_t i = 0; i < frames.frames.size() && i < 3; ++i) {
      for (uint32_t r = b; r < e; ++r) {
        if (trace.Str(trace.slices.name_id[r]) != frames.frames[i].name) continue;
        if (thread_gaps.Clip(trace.slices.ts_ns[r], trace.slice_end(r)).Length() == 0) continue;
        f.events.push_back(ctx.EventRef(r, fmt::format("ran in the gaps: {} as the innermost frame", Ms(frames.frames[i].self_ns))));
        break;
      }
    }
  }
  f.suggestions = {
      {"Do per-step bookkeeping (metrics, logging, checkpoint bookkeeping) every N steps, or hand it to a "
       "background thread, instead of inside every step.",
       "code", "if step % 50 == 0:\n    log_metrics(compute_metrics(logits.detach(), labels))"},
      {"Replace Python loops over tensor values (.tolist(), per-element indexing) with tensor operations.", "code",
       "confusion = torch.bincount(labels * classes + preds, minlength=classes * classes).view(classes, classes)"},
      {"Trace the remaining host work so the next profile names it.", "code",
       "with torch.profiler.record_function(\"metrics\"):\n    ..."},
  };
  if (has_device)
    f.suggestions.push_back({"Keep the device fed while the host works: enqueue the next step's work before the host-side "
                             "bookkeeping, and avoid host syncs (.item(), .cpu()) inside the step.",
                             "", ""});
  out.push_back(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> MakeHostGapRule() { return std::make_unique<HostGapRule>(); }

}  // namespace cprof
