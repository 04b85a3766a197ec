// page_fault_churn (category memory_churn): the process keeps giving freed memory back to the OS
// and faulting it back in. glibc malloc serves large blocks with mmap (freed with munmap) and trims
// the top of its heap when more than 128 KiB is free there; a step that allocates and frees
// activation-sized tensors then pays one page fault per 4 KiB page touched again, every step.
//
//   page_fault_churn: "Page faults take 24% of step time: 1,080 minor faults per step (12.4 us
//   each, measured on this machine)"
//
// Read from the collector's /proc counters on process tracks, "page_faults.minor.per_s" (one rate
// per sampling pass, covering the time since the previous pass, spread over the steps it
// overlaps) and "rss.bytes", and the "page_fault_ns" metadata: the cost of one first-touch fault
// measured by `trace` on the machine it ran on (2 us assumed when absent). Faults that grew the
// resident set (a warming cache, a leak) are not churn: per process, the pages the resident set
// grew by over the analysed span are taken off its faults; what is left are re-faults.
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
#include <map>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/glibc_heap.h"
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
constexpr double kPageBytes = 4096;

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

// One process's fault rates and resident-set sizes (its counter tracks).
struct ProcessFaults {
  std::vector<FaultInterval> intervals;
  std::vector<std::pair<int64_t, double>> rss;  // (ts, bytes), by time
};

std::map<uint32_t, ProcessFaults> FaultsByProcess(const Trace& trace) {
  const TrackTable& tt = trace.tracks;
  enum Kind : uint8_t { kOther, kFaults, kRss };
  std::vector<Kind> kind(tt.size(), kOther);
  for (uint32_t i = 0; i < tt.size(); ++i) {
    if (tt.kind[i] != TrackKind::kCounter) continue;
    const TrackId p = tt.parent_id[i];
    if (p == kNoTrack || tt.kind[Index(p)] != TrackKind::kProcess) continue;
    const std::string_view name = trace.Str(tt.name_id[i]);
    kind[i] = name == "page_faults.minor.per_s" ? kFaults : name == "rss.bytes" ? kRss : kOther;
  }
  std::map<uint32_t, ProcessFaults> out;
  std::vector<int64_t> last(tt.size(), -1);
  const CounterTable& c = trace.counters;
  for (uint32_t i = 0; i < c.size(); ++i) {  // counters are sorted by time within a track
    const uint32_t t = Index(c.track_id[i]);
    if (kind[t] == kOther || !std::isfinite(c.value[i])) continue;
    ProcessFaults& pf = out[Index(tt.parent_id[t])];
    if (kind[t] == kRss) {
      pf.rss.emplace_back(c.ts_ns[i], c.value[i]);
      continue;
    }
    if (last[t] >= 0 && c.ts_ns[i] > last[t] && c.value[i] > 0) pf.intervals.push_back({last[t], c.ts_ns[i], c.value[i]});
    last[t] = c.ts_ns[i];
  }
  std::erase_if(out, [](const auto& kv) { return kv.second.intervals.empty(); });
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

// The resident set at `ts`: the last value at or before it (the first one when none is).
double RssAt(const std::vector<std::pair<int64_t, double>>& rss, int64_t ts) {
  auto it = std::upper_bound(rss.begin(), rss.end(), ts, [](int64_t t, const auto& p) { return t < p.first; });
  return it == rss.begin() ? it->second : std::prev(it)->second;
}

void PageFaultChurnRule::Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
  const Trace& trace = ctx.trace();
  const std::map<uint32_t, ProcessFaults> processes = FaultsByProcess(trace);
  if (processes.empty()) return;
  const std::vector<Step>& steps = ctx.steps();
  const std::optional<int64_t> measured = host_rules::MetadataInt(trace, "page_fault_ns");
  const double fault_ns = measured && *measured > 0 ? static_cast<double>(*measured) : kAssumedFaultNs;

  // The analysed span: from the first step's start to the last one's end, or the window.
  const int64_t from = steps.empty() ? std::max(ctx.window().start_ns, trace.start_ns) : steps.front().start_ns;
  const int64_t to = steps.empty() ? std::min(ctx.window().end_ns, trace.end_ns) : steps.back().end_ns();
  // Per process: faults in the span, less the pages its resident set grew by (first touches of
  // memory it keeps: a warming cache or a leak, not churn); the rest are pages faulted in again.
  std::vector<double> per_step(std::max<size_t>(1, steps.size()), 0.0);
  double faults = 0, churn = 0, growth_pages = 0;
  size_t intervals = 0;
  for (const auto& [track, pf] : processes) {
    const double n = FaultsIn(pf.intervals, from, to);
    const double grown = pf.rss.empty() ? 0.0 : std::max(0.0, RssAt(pf.rss, to) - RssAt(pf.rss, from)) / kPageBytes;
    const double kept = n > 0 ? std::max(0.0, n - grown) / n : 0.0;
    faults += n;
    churn += n * kept;
    growth_pages += grown;
    intervals += pf.intervals.size();
    if (steps.empty()) {
      per_step[0] += n * kept;
    } else {
      for (size_t k = 0; k < steps.size(); ++k)
        per_step[k] += FaultsIn(pf.intervals, steps[k].start_ns, steps[k].end_ns()) * kept;
    }
  }
  int64_t base = 0;
  for (const Step& st : steps) base += st.dur_ns;
  if (steps.empty()) base = to - from;
  const size_t worst = static_cast<size_t>(std::max_element(per_step.begin(), per_step.end()) - per_step.begin());
  const double mean = churn / static_cast<double>(per_step.size());
  if (base <= 0 || mean < kMinFaultsPerStep) return;
  const int64_t cost_ns = std::min(base, static_cast<int64_t>(churn * fault_ns));
  const double share = static_cast<double>(cost_ns) / static_cast<double>(base);
  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
  if (terms.magnitude <= 0) return;
  int64_t with_faults = 0, steady = 0;
  for (double n : per_step) {
    if (n >= 1) ++with_faults;
    if (n >= 0.25 * mean) ++steady;
  }
  terms.support = SupportFromCount(steps.empty() ? static_cast<int64_t>(intervals) : with_faults);
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
      "Minor page faults inside {} less the pages the resident set grew by ({:.0f} of {:.0f}), times the cost of "
      "one fault ({}), of which 90% goes away when freed memory stays in the process: a steady loop then faults "
      "almost nothing after its first step.",
      steps.empty() ? "the analysed span" : "steps", churn, faults,
      measured ? fmt::format("{:.1f} us, measured by trace on this machine", fault_ns / 1000)
               : fmt::format("{:.1f} us assumed; the trace has no measured page_fault_ns", fault_ns / 1000));
  // Without steps, a rate per second of the analysed span, not per (one) window.
  const double per = steps.empty() ? churn / std::max(static_cast<double>(base) / 1e9, 1e-9) : mean;
  f.title = fmt::format("Page faults take {} of {}: {:.0f} minor faults per {} ({:.1f} us each, {})", Pct(share),
                        steps.empty() ? "the time" : "step time", per, steps.empty() ? "second" : "step",
                        fault_ns / 1000, measured ? "measured" : "assumed");
  f.summary = fmt::format(
      "The process took {:.0f} minor page faults {} while its resident set grew by {:.0f} pages: {:.0f} faults, {:.0f} "
      "per step on average, brought back pages it already had, about {} at {:.1f} us each. A loop that allocates and "
      "frees the same tensors every step should fault only in its first one: these faults mean freed memory goes "
      "back to the OS (glibc munmaps blocks above its mmap threshold and trims the top of its heap when more than "
      "its trim threshold is free) and the next step faults it back in, page by page, zeroed.",
      faults, steps.empty() ? "in the analysed span" : "inside steps", growth_pages, churn, mean, Ms(cost_ns),
      fault_ns / 1000);
  f.metrics = {{"page_fault_share", share, "ratio"},
               {"minor_faults", faults, "count"},
               {"rss_growth_pages", growth_pages, "count"},
               {"refaults", churn, "count"},
               {"minor_faults_per_step", mean, "count"},
               {"page_fault_ns", fault_ns, "ns"},
               {"page_fault_ns_measured", measured ? 1.0 : 0.0, ""},
               {"page_fault_cost_ns", static_cast<double>(cost_ns), "ns"}};
  if (!steps.empty()) f.events.push_back(ctx.EventRef(steps[worst].slice_row, "the step with the most page faults"));
  f.suggestions = {
      {"Keep freed memory in the process: raise glibc's mmap threshold to its maximum (32 MiB) and its trim threshold "
       "above the peak heap, together — either one alone fixes the other at its default and can make it worse (on "
       "examples/aigc/unet the trim threshold alone made the step 3-4x slower; both together cut it 24%).",
       "env", glibc_heap::KeepHeapEnv()},
      {"Or preload an allocator that keeps and reuses freed pages (jemalloc, tcmalloc).", "command",
       "apt install libjemalloc2\nLD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2 python3 train.py"},
  };
  out.push_back(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> MakePageFaultChurnRule() { return std::make_unique<PageFaultChurnRule>(); }

}  // namespace cprof
