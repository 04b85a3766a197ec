// page_fault_churn (category memory_churn): the process keeps giving freed memory back to the OS
// and faulting it back in. glibc malloc serves large blocks with mmap (freed with munmap) and trims
// the top of its heap when more than 128 KiB is free there; a step that allocates and frees
// activation-sized tensors then pays one page fault per 4 KiB page touched again, every step.
//
//   page_fault_churn: "Page faults take 24% of step time: 1,080 minor faults per step (12.4 us
//   each, measured on this machine)"
//
// Read from the collector's /proc counters "page_faults.minor.per_s" on process tracks (one rate
// per sampling pass) and the "page_fault_ns" metadata: the cost of one first-touch fault measured
// by `trace` on the machine it ran on (2 us assumed when absent). Each rate covers the time since
// the process's previous pass and is spread over the steps it overlaps.
// Fires when faults inside steps cost more than 5% of step time (of the analysed span without
// steps), at 64 faults (256 KiB) per step or more.
//
// Confidence (confidence.h):
//  - magnitude   = 1 - 0.05 / (fault time / step time);
//  - support     = n / (n + 3), n = steps with faults (sampling passes without steps);
//  - consistency = steps with at least a quarter of the mean faults per step / steps;
//  - specificity = 1.0 with the measured fault cost; 0.7 with the assumed one.
// Saving: 90% of the fault time — with freed memory kept in the process (glibc's thresholds raised
// together, or jemalloc) a steady loop faults almost nothing after its first step. Measured on
// examples/aigc/unet (2-core VM, 12.4 us per fault): 63 -> 48 ms per step.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rule_util.h"
#include "analysis/diagnose/rules/rule_support.h"

namespace cprof {
namespace {

using host_rules::Ms;
using host_rules::Pct;

constexpr double kThreshold = 0.05;
constexpr double kMinFaultsPerStep = 64;
constexpr double kAssumedFaultNs = 2000;
constexpr double kKeptShare = 0.9;

class PageFaultChurnRule final : public Rule {
 public:
  std::string_view name() const override { return "page_fault_churn"; }
  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override;
};

// A rate sample: `rate` faults per second over (from, to].
struct FaultInterval {
  int64_t from, to;
  double rate;
};

std::vector<FaultInterval> FaultIntervals(const Trace& trace) {
  const TrackTable& tt = trace.tracks;
  std::vector<bool> wanted(tt.size(), false);
  bool any = false;
  for (uint32_t i = 0; i < tt.size(); ++i) {
    if (tt.kind[i] != TrackKind::kCounter || trace.Str(tt.name_id[i]) != "page_faults.minor.per_s") continue;
    const TrackId p = tt.parent_id[i];
    wanted[i] = p != kNoTrack && tt.kind[Index(p)] == TrackKind::kProcess;
    any |= wanted[i];
  }
  std::vector<FaultInterval> out;
  if (!any) return out;
  std::vector<int64_t> last(tt.size(), -1);
  const CounterTable& c = trace.counters;
  for (uint32_t i = 0; i < c.size(); ++i) {  // counters are sorted by time within a track
    const uint32_t t = Index(c.track_id[i]);
    if (!wanted[t]) continue;
    if (last[t] >= 0 && c.ts_ns[i] > last[t] && std::isfinite(c.value[i]) && c.value[i] > 0)
      out.push_back({last[t], c.ts_ns[i], c.value[i]});
    last[t] = c.ts_ns[i];
  }
  return out;
}

// Faults of `intervals` inside [from, to).
double FaultsIn(const std::vector<FaultInterval>& intervals, int64_t from, int64_t to) {
  double n = 0;
  for (const FaultInterval& v : intervals) {
    const int64_t a = std::max(from, v.from), b = std::min(to, v.to);
    if (b > a) n += v.rate * static_cast<double>(b - a) / 1e9;
  }
  return n;
}

void PageFaultChurnRule::Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
  const Trace& trace = ctx.trace();
  std::vector<FaultInterval> intervals = FaultIntervals(trace);
  if (intervals.empty()) return;
  const std::vector<Step>& steps = ctx.steps();
  const std::optional<int64_t> measured = host_rules::MetadataInt(trace, "page_fault_ns");
  const double fault_ns = measured && *measured > 0 ? static_cast<double>(*measured) : kAssumedFaultNs;

  // Faults per step (one "step" spanning the analysed window when there are none).
  std::vector<double> per_step;
  int64_t base = 0;
  size_t worst = 0;
  if (!steps.empty()) {
    for (const Step& s : steps) {
      per_step.push_back(FaultsIn(intervals, s.start_ns, s.end_ns()));
      base += s.dur_ns;
    }
    worst = static_cast<size_t>(std::max_element(per_step.begin(), per_step.end()) - per_step.begin());
  } else {
    per_step.push_back(FaultsIn(intervals, ctx.window().start_ns, ctx.window().end_ns));
    base = ctx.span_ns();
  }
  double faults = 0;
  for (double n : per_step) faults += n;
  const double mean = faults / static_cast<double>(per_step.size());
  if (base <= 0 || mean < kMinFaultsPerStep) return;
  const int64_t cost_ns = std::min(base, static_cast<int64_t>(faults * fault_ns));
  const double share = static_cast<double>(cost_ns) / static_cast<double>(base);
  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
  if (terms.magnitude <= 0) return;
  int64_t with_faults = 0, steady = 0;
  for (double n : per_step) {
    if (n >= 1) ++with_faults;
    if (n >= 0.25 * mean) ++steady;
  }
  terms.support = SupportFromCount(steps.empty() ? static_cast<int64_t>(intervals.size()) : with_faults);
  terms.consistency = steps.empty() ? 1.0 : static_cast<double>(steady) / static_cast<double>(per_step.size());
  terms.specificity = measured ? 1.0 : 0.7;

  Finding f;
  f.category = Category::kMemoryChurn;
  f.device = std::string(DeviceKindId(ctx.device_kind()));
  f.confidence_terms = terms;
  f.confidence = ComputeConfidence(terms);
  rules::SetCost(ctx, cost_ns, f);
  f.saving_ns = static_cast<int64_t>(static_cast<double>(cost_ns) * kKeptShare);
  f.saving_method = fmt::format(
      "Minor page faults inside {} ({:.0f}) times the cost of one fault ({}), of which 90% goes away when freed "
      "memory stays in the process: a steady loop then faults almost nothing after its first step.",
      steps.empty() ? "the analysed span" : "steps", faults,
      measured ? fmt::format("{:.1f} us, measured by trace on this machine", fault_ns / 1000)
               : fmt::format("{:.1f} us assumed; the trace has no measured page_fault_ns", fault_ns / 1000));
  f.title = fmt::format("Page faults take {} of step time: {:.0f} minor faults per {} ({:.1f} us each{})", Pct(share),
                        mean, steps.empty() ? "second" : "step", fault_ns / 1000, measured ? ", measured" : ", assumed");
  if (steps.empty()) {  // per second, not per window
    const double seconds = static_cast<double>(base) / 1e9;
    f.title = fmt::format("Page faults take {} of the time: {:.0f} minor faults per second ({:.1f} us each{})",
                          Pct(share), faults / std::max(seconds, 1e-9), fault_ns / 1000,
                          measured ? ", measured" : ", assumed");
  }
  f.summary = fmt::format(
      "The process took {:.0f} minor page faults {}, {:.0f} per step on average, about {} at {:.1f} us each. A loop "
      "that allocates and frees the same tensors every step should fault only in its first one: these faults mean "
      "freed memory goes back to the OS (glibc munmaps blocks above its mmap threshold and trims the top of its heap "
      "when more than its trim threshold is free) and the next step faults it back in, page by page, zeroed.",
      faults, steps.empty() ? "in the analysed span" : "inside steps", mean, Ms(cost_ns), fault_ns / 1000);
  f.metrics = {{"page_fault_share", share, "ratio"},
               {"minor_faults", faults, "count"},
               {"minor_faults_per_step", mean, "count"},
               {"page_fault_ns", fault_ns, "ns"},
               {"page_fault_ns_measured", measured ? 1.0 : 0.0, ""},
               {"page_fault_cost_ns", static_cast<double>(cost_ns), "ns"}};
  if (!steps.empty()) f.events.push_back(ctx.EventRef(steps[worst].slice_row, "the step with the most page faults"));
  f.suggestions = {
      {"Keep freed memory in the process: raise glibc's mmap threshold to its maximum (32 MiB) and its trim threshold "
       "above the peak heap, together — either one alone fixes the other at its default and can make it worse (on "
       "examples/aigc/unet the trim threshold alone tripled the step time; both together cut it 24%).",
       "env", "MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824"},
      {"Or preload an allocator that keeps and reuses freed pages (jemalloc, tcmalloc).", "command",
       "apt install libjemalloc2\nLD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 python3 train.py"},
  };
  out.push_back(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> MakePageFaultChurnRule() { return std::make_unique<PageFaultChurnRule>(); }

}  // namespace cprof
