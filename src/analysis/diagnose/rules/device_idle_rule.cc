// device_idle: the accelerator sits idle inside steps. A symptom more than a cause: the summary
// splits the idle time by what the host was doing meanwhile (step_breakdown.h: dispatching
// framework operators, running untraced code, or nothing traced), and the evidence is the largest
// idle gaps with the device work that ends each one. More specific rules (launch_overhead,
// host_device_sync, host_gap, dataloader) name the cause when they can.
//
// Fires when device idle time exceeds kThreshold of step wall time.
// Confidence terms (confidence.h):
//  - magnitude   = MagnitudeOverThreshold(idle share of step time, kThreshold);
//  - support     = SupportFromCount(idle gaps longer than kGapNs);
//  - consistency = share of steps whose idle share is above kThreshold;
//  - specificity = 0.6: idle time is read off the trace, but it names no cause by itself.
// Saving: half the idle time: overlapping host work with the device (async input, CUDA/NPU graphs,
// removing syncs) recovers part of it; the rest is host work the step needs. Stated, not measured.
#include <algorithm>

#include <fmt/format.h>

#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/rule_support.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.2;
constexpr int64_t kGapNs = 50'000;  // 50 us: longer than any launch latency
constexpr double kRecoverable = 0.5;

// The outermost slice on the main host thread that covers `ts` (below the step): the operator or
// phase the host was in, e.g. the optimizer step or a module's forward.
std::optional<uint32_t> HostSliceAt(const DiagnosisContext& ctx, int64_t ts) {
  const std::optional<TrackId> main = ctx.main_thread();
  if (!main) return std::nullopt;
  const Trace& t = ctx.trace();
  auto [b, e] = t.track_slices(*main);
  std::optional<uint32_t> best;
  const auto* starts = t.slices.ts_ns.data();
  const uint32_t last = static_cast<uint32_t>(std::upper_bound(starts + b, starts + e, ts) - starts);
  // Slices are sorted by start; walk back to the enclosing ones (bounded: nesting is shallow).
  for (uint32_t r = last, seen = 0; r-- > b && seen < 4096; ++seen) {
    if (t.slice_end(r) <= ts) continue;
    if (t.Str(t.slices.name_id[r]).starts_with("ProfilerStep#")) continue;
    if (!best || t.slices.depth[r] < t.slices.depth[*best]) best = r;
    if (t.slices.depth[r] == 0) break;
  }
  return best;
}

class DeviceIdleRule final : public Rule {
 public:
  std::string_view name() const override { return "device_idle"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    if (ctx.device_intervals().empty()) return;
    std::vector<StepBreakdown> parts = ctx.step_breakdown();
    if (ctx.steps().empty()) {  // one window over the device-active span
      const std::optional<GpuTimeline>& tl = ctx.device_timeline();
      if (!tl) return;
      Step s;
      s.id = -1;
      s.start_ns = tl->start_ns;
      s.dur_ns = tl->total_ns;
      s.slice_row = UINT32_MAX;
      parts = ComputeStepBreakdown(ctx.trace(), {s}, ctx.device_intervals(), ctx.main_thread());
    }
    int64_t idle = 0, wall = 0, framework = 0, untraced = 0, nothing = 0, steps_over = 0;
    for (const StepBreakdown& b : parts) {
      idle += b.device_idle_ns();
      wall += b.dur_ns;
      framework += b.host_framework_ns;
      untraced += b.untraced_host_ns;
      nothing += b.idle_ns;
      if (b.dur_ns > 0 && b.device_idle_ns() > kThreshold * b.dur_ns) ++steps_over;
    }
    if (wall <= 0 || idle <= 0) return;
    const double share = static_cast<double>(idle) / static_cast<double>(wall);

    // The largest idle gaps inside the analysed steps, each cited by the work that ends it.
    const Trace& t = ctx.trace();
    const std::vector<uint32_t>& rows = ctx.device_rows();
    struct Gap {
      int64_t start, end;
    };
    std::vector<Gap> gaps;
    const IntervalSet& all = ctx.device_intervals().all;
    for (const StepBreakdown& b : parts) {
      const IntervalSet busy = all.Clip(b.start_ns, b.start_ns + b.dur_ns);
      int64_t cursor = b.start_ns;
      for (const Interval& iv : busy.parts()) {
        if (iv.start > cursor) gaps.push_back({cursor, iv.start});
        cursor = std::max(cursor, iv.end);
      }
      if (b.start_ns + b.dur_ns > cursor) gaps.push_back({cursor, b.start_ns + b.dur_ns});
    }
    std::sort(gaps.begin(), gaps.end(), [](const Gap& a, const Gap& b) { return a.end - a.start > b.end - b.start; });
    const int64_t long_gaps = std::count_if(gaps.begin(), gaps.end(), [](const Gap& g) { return g.end - g.start >= kGapNs; });

    Finding f;
    f.category = Category::kDeviceIdle;
    f.confidence_terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
    f.confidence_terms.support = SupportFromCount(long_gaps);
    f.confidence_terms.consistency = static_cast<double>(steps_over) / static_cast<double>(parts.size());
    f.confidence_terms.specificity = 0.6;
    f.confidence = ComputeConfidence(f.confidence_terms);
    if (f.confidence <= 0) return;
    f.title = fmt::format("the device is idle {} of step time ({} per step)", rules::Percent(share),
                          rules::FormatNs(idle / static_cast<int64_t>(parts.size())));
    f.summary = fmt::format(
        "Inside {} the device did nothing for {} of {}. Meanwhile the host was dispatching framework operators for "
        "{}, running code no event covers (Python, input pipeline) for {}, and outside its traced operators for {}. "
        "{} idle gaps are longer than {}.",
        ctx.steps().empty() ? "the device-active span" : fmt::format("{} steps", parts.size()),
        rules::FormatNs(idle), rules::FormatNs(wall), rules::FormatNs(framework), rules::FormatNs(untraced),
        rules::FormatNs(nothing), long_gaps, rules::FormatNs(kGapNs));
    f.metrics = {{"device_idle_ns", static_cast<double>(idle), "ns"},
                 {"device_idle_fraction", share, "ratio"},
                 {"idle_while_host_dispatches_ns", static_cast<double>(framework), "ns"},
                 {"idle_while_host_untraced_ns", static_cast<double>(untraced), "ns"},
                 {"idle_outside_host_ops_ns", static_cast<double>(nothing), "ns"},
                 {"longest_gap_ns", gaps.empty() ? 0.0 : static_cast<double>(gaps[0].end - gaps[0].start), "ns"},
                 {"gaps_over_50us", static_cast<double>(long_gaps), "count"}};
    for (size_t i = 0; i < gaps.size() && f.events.size() < 5; ++i) {
      // The device work that ends the gap (the first to start at or after its end).
      auto it = std::lower_bound(rows.begin(), rows.end(), gaps[i].end,
                                 [&](uint32_t r, int64_t ts) { return t.slices.ts_ns[r] < ts; });
      if (it == rows.end()) continue;
      f.events.push_back(ctx.EventRef(*it, fmt::format("device idle {} before it", rules::FormatNs(gaps[i].end - gaps[i].start))));
      // What the host's main thread was doing in the middle of the gap.
      if (const std::optional<uint32_t> host = HostSliceAt(ctx, (gaps[i].start + gaps[i].end) / 2))
        f.events.push_back(ctx.EventRef(*host, fmt::format("the host was in this during a {} device gap",
                                                           rules::FormatNs(gaps[i].end - gaps[i].start))));
    }
    f.saving_ns = static_cast<int64_t>(kRecoverable * static_cast<double>(idle));
    f.saving_method =
        "half of the device idle time inside steps, assuming overlap (async input, graphs, fewer syncs) hides half "
        "of the host work the device waits for";
    rules::SetCost(ctx, idle, f);
    const rules::Framework fw = rules::FrameworkOf(ctx);
    const std::string dev(rules::DeviceModule(fw));
    f.suggestions.push_back({"Feed the device ahead of time: load and copy the next batch asynchronously.", "code",
                             "loader = DataLoader(ds, batch_size=B, num_workers=4, pin_memory=True, "
                             "persistent_workers=True)\nx = x.to(device, non_blocking=True)"});
    if (fw == rules::Framework::kPytorchCuda)
      f.suggestions.push_back({"If the gaps are the host dispatching many small kernels, capture the step in a CUDA "
                               "graph or compile it.",
                               "code", "model = torch.compile(model, mode=\"reduce-overhead\")"});
    f.suggestions.push_back({"Look at what the host does in the largest gaps (the cited events) with the timeline.",
                             "command", "cann-profiler visualize --trace TRACE --diagnosis root_cause_report.yaml --output map.html"});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeDeviceIdleRule() { return std::make_unique<DeviceIdleRule>(); }

}  // namespace cprof
