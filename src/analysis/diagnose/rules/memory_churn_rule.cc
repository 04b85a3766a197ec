// memory_churn: allocation, zero-fill and cat-growth dominate. Three signals:
//  - allocation and fill operators the program calls itself (aten::empty/zeros/ones/full/
//    fill_/zero_/..._like/new_*; not those an operator calls internally): their time;
//  - cat-growth: a run of aten::cat calls whose output (the allocation made inside each call,
//    from the allocator events) keeps growing, so every call copies everything accumulated so far;
//  - allocator events: allocations and bytes per step, and the most repeated allocation size.
// Fires when allocation/fill time plus cat-growth time exceeds 10% of step time (of the analysed
// span without steps) over at least 10 calls.
//
// Confidence (confidence.h):
//  - magnitude   = 1 - 0.10 / (churn time / step time);
//  - support     = n / (n + 3), n = churn operator calls;
//  - consistency = steps where churn exceeds 10% of the step / steps (1 without steps);
//  - specificity = 1.0 when allocator events back the finding (cat outputs measured, allocation
//    counts known); 0.7 from operator names alone.
// Saving: for cat-growth, the copy of what was already accumulated — each call's time times
// (1 - appended bytes / output bytes) — which a preallocated buffer or one final cat avoids;
// plus half of the allocation/fill time (reused buffers skip the allocation, some still need filling).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <map>
#include <unordered_map>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/host_step_activity.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rule_util.h"
#include "stats/interval_set.h"

namespace cprof {
namespace {

using host_rules::Ms;
using host_rules::Pct;

constexpr double kThreshold = 0.10;
constexpr int64_t kMinCalls = 10;

class MemoryChurnRule final : public Rule {
 public:
  std::string_view name() const override { return "memory_churn"; }
  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override;
};

bool IsAllocOrFillOp(std::string_view n) {
  static constexpr std::array<std::string_view, 14> kOps = {
      "aten::empty",      "aten::empty_like", "aten::empty_strided", "aten::zeros",     "aten::zeros_like",
      "aten::ones",       "aten::ones_like",  "aten::full",          "aten::full_like", "aten::fill_",
      "aten::zero_",      "aten::new_zeros",  "aten::new_empty",     "aten::new_full"};
  return std::find(kOps.begin(), kOps.end(), n) != kOps.end();
}

bool IsCat(std::string_view n) { return n == "aten::cat" || n == "aten::_cat" || n == "aten::concat" || n == "ConcatD"; }

struct CatCall {
  uint32_t row;
  int64_t out_bytes;  // largest allocation inside the call
};

void MemoryChurnRule::Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
  const Trace& trace = ctx.trace();
  const SliceTable& s = trace.slices;
  const MemoryEventTable& m = trace.memory_events;
  const std::vector<Step>& steps = ctx.steps();

  // Allocator events by thread, sorted by time, for "what did this call allocate".
  std::unordered_map<uint32_t, std::vector<uint32_t>> allocs_by_thread;
  int64_t alloc_count = 0, alloc_bytes = 0;
  std::map<int64_t, int64_t> count_by_size;
  for (uint32_t i = 0; i < m.size(); ++i) {
    if (m.bytes[i] <= 0 || !ctx.window().Contains(m.ts_ns[i])) continue;
    allocs_by_thread[Index(m.track_id[i])].push_back(i);
    ++alloc_count;
    alloc_bytes += m.bytes[i];
    ++count_by_size[m.bytes[i]];
  }
  for (auto& [t, v] : allocs_by_thread)
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return m.ts_ns[a] < m.ts_ns[b]; });
  auto largest_alloc_in = [&](uint32_t row) -> int64_t {
    auto it = allocs_by_thread.find(Index(s.track_id[row]));
    if (it == allocs_by_thread.end()) return -1;
    const std::vector<uint32_t>& v = it->second;
    auto lo = std::lower_bound(v.begin(), v.end(), s.ts_ns[row], [&](uint32_t i, int64_t t) { return m.ts_ns[i] < t; });
    int64_t best = -1;
    for (; lo != v.end() && m.ts_ns[*lo] <= trace.slice_end(row); ++lo) best = std::max(best, m.bytes[*lo]);
    return best;
  };

  std::vector<Interval> alloc_spans;
  std::vector<uint32_t> alloc_rows;
  std::map<uint32_t, std::vector<CatCall>> cats_by_thread;
  for (uint32_t r = 0; r < s.size(); ++r) {
    if (s.dur_ns[r] <= 0 || !ctx.InWindow(r)) continue;
    if (trace.tracks.kind[Index(s.track_id[r])] != TrackKind::kThread) continue;
    std::string_view n = trace.Str(s.name_id[r]);
    const bool alloc = IsAllocOrFillOp(n), cat = IsCat(n);
    if (!alloc && !cat) continue;
    // An allocation another operator makes is that operator's business; a cat inside stack/vstack/
    // concatenate still copies everything it is given, so it counts (once: not inside another cat).
    if (alloc && host_rules::IsNestedOperator(trace, r)) continue;
    if (cat && s.parent_id[r] != kNoSlice && IsCat(trace.Str(s.name_id[Index(s.parent_id[r])]))) continue;
    if (alloc) {
      alloc_spans.push_back({s.ts_ns[r], trace.slice_end(r)});
      alloc_rows.push_back(r);
    } else {
      cats_by_thread[Index(s.track_id[r])].push_back({r, largest_alloc_in(r)});
    }
  }

  // Cat-growth: per thread, calls whose output is larger than the previous call's.
  std::vector<Interval> growth_spans;
  int64_t growth_calls = 0, growth_excess = 0, growth_first = 0, growth_last = 0;
  std::vector<uint32_t> growth_rows;
  for (auto& [t, calls] : cats_by_thread) {
    if (calls.size() < 4) continue;
    int64_t grew = 0, measured = 0;
    for (size_t i = 1; i < calls.size(); ++i) {
      if (calls[i].out_bytes <= 0 || calls[i - 1].out_bytes <= 0) continue;
      ++measured;
      if (calls[i].out_bytes > calls[i - 1].out_bytes) ++grew;
    }
    if (measured < 3 || grew * 10 < measured * 6) continue;  // at least 60% of consecutive calls grow
    int64_t lo = INT64_MAX, hi = 0;
    for (const CatCall& c : calls)
      if (c.out_bytes > 0) lo = std::min(lo, c.out_bytes), hi = std::max(hi, c.out_bytes);
    if (hi < 4 * lo) continue;  // grows at least 4x over the run
    for (size_t i = 1; i < calls.size(); ++i) {
      const CatCall& c = calls[i];
      const int64_t prev = calls[i - 1].out_bytes;
      if (c.out_bytes <= 0 || prev <= 0 || c.out_bytes <= prev) continue;
      const double appended = static_cast<double>(c.out_bytes - prev) / static_cast<double>(c.out_bytes);
      growth_excess += static_cast<int64_t>(static_cast<double>(s.dur_ns[c.row]) * (1.0 - appended));
      growth_spans.push_back({s.ts_ns[c.row], trace.slice_end(c.row)});
      growth_rows.push_back(c.row);
      ++growth_calls;
    }
    if (growth_first == 0 || lo < growth_first) growth_first = lo;
    growth_last = std::max(growth_last, hi);
  }

  const IntervalSet alloc_set = IntervalSet::Union(alloc_spans);
  const IntervalSet growth_set = IntervalSet::Union(growth_spans);
  const IntervalSet churn = IntervalSet::Union([&] {
    std::vector<Interval> v = alloc_set.parts();
    v.insert(v.end(), growth_set.parts().begin(), growth_set.parts().end());
    return v;
  }());
  int64_t base = 0, churn_ns = 0, symptomatic = 0;
  if (!steps.empty()) {
    for (size_t i = 0; i < steps.size(); ++i) {  // per loop iteration (host_step_activity.h)
      const int64_t end = IterationEndNs(trace, steps, i), len = end - steps[i].start_ns;
      const int64_t c = churn.Clip(steps[i].start_ns, end).Length();
      base += len;
      churn_ns += c;
      if (len > 0 && static_cast<double>(c) / static_cast<double>(len) > kThreshold) ++symptomatic;
    }
  } else {
    base = ctx.span_ns();
    churn_ns = churn.Length();
  }
  if (base <= 0 || churn_ns <= 0) return;
  // Churn is repetition: a few long allocations are not it.
  if (static_cast<int64_t>(alloc_rows.size()) + growth_calls < kMinCalls) return;
  const double share = static_cast<double>(churn_ns) / static_cast<double>(base);
  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
  if (terms.magnitude <= 0) return;
  terms.support = SupportFromCount(static_cast<int64_t>(alloc_rows.size()) + growth_calls);
  terms.consistency = steps.empty() ? 1.0 : static_cast<double>(symptomatic) / static_cast<double>(steps.size());
  terms.specificity = alloc_count > 0 ? 1.0 : 0.7;

  const int64_t nsteps = std::max<int64_t>(1, static_cast<int64_t>(steps.size()));
  Finding f;
  f.category = Category::kMemoryChurn;
  f.device = std::string(DeviceKindId(ctx.device_kind()));
  f.confidence_terms = terms;
  f.confidence = ComputeConfidence(terms);
  f.cost_total_ns = churn_ns;
  f.cost_per_step_ns = steps.empty() ? 0 : churn_ns / nsteps;
  f.saving_ns = std::min(churn_ns, growth_excess + alloc_set.Length() / 2);
  f.saving_method =
      "Cat-growth: each growing cat's time times (1 - appended bytes / output bytes), the re-copy of what was already "
      "accumulated, which a preallocated buffer or a single final cat avoids; plus half of the allocation/fill operator "
      "time (reused buffers skip the allocation, some still need filling).";
  int64_t top_size = 0, top_count = 0;
  for (const auto& [size, count] : count_by_size)
    if (count > top_count) top_size = size, top_count = count;
  if (growth_calls > 0) {
    f.title = fmt::format("Memory churn takes {} of step time: {} torch.cat calls grow their output {:.0f}x", Pct(share),
                          growth_calls, static_cast<double>(growth_last) / static_cast<double>(std::max<int64_t>(1, growth_first)));
  } else {
    f.title = fmt::format("Memory churn takes {} of step time: {} allocation/fill operator calls", Pct(share), alloc_rows.size());
  }
  f.summary = fmt::format(
      "Allocation and fill operators called by the program take {}{}. {}",
      Ms(alloc_set.Length()),
      growth_calls > 0 ? fmt::format(", and {} aten::cat calls whose output keeps growing (from {} to {} bytes) take {}: "
                                     "each copies everything accumulated so far, so the cost grows quadratically",
                                     growth_calls, growth_first, growth_last, Ms(growth_set.Length()))
                       : std::string(),
      alloc_count > 0 ? fmt::format("The allocator saw {} allocations ({} bytes) in total, {} per step; the most repeated "
                                    "size, {} bytes, was allocated {} times.",
                                    alloc_count, alloc_bytes, alloc_count / nsteps, top_size, top_count)
                      : std::string("No allocator events were recorded."));
  f.metrics = {{"churn_share", share, "ratio"},
               {"churn_ns", static_cast<double>(churn_ns), "ns"},
               {"alloc_fill_ns", static_cast<double>(alloc_set.Length()), "ns"},
               {"alloc_fill_calls", static_cast<double>(alloc_rows.size()), "count"},
               {"cat_growth_calls", static_cast<double>(growth_calls), "count"},
               {"cat_growth_ns", static_cast<double>(growth_set.Length()), "ns"},
               {"allocations", static_cast<double>(alloc_count), "count"},
               {"allocations_per_step", static_cast<double>(alloc_count / nsteps), "count"},
               {"allocated_bytes_per_step", static_cast<double>(alloc_bytes / nsteps), "bytes"},
               {"most_repeated_size_bytes", static_cast<double>(top_size), "bytes"},
               {"most_repeated_size_count", static_cast<double>(top_count), "count"}};
  auto longest_first = [&](std::vector<uint32_t> v) {
    std::sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return s.dur_ns[a] > s.dur_ns[b]; });
    return v;
  };
  for (uint32_t r : longest_first(growth_rows)) {
    if (f.events.size() >= 3) break;
    f.events.push_back(ctx.EventRef(r, "a growing cat: copies all accumulated rows again"));
  }
  for (uint32_t r : longest_first(alloc_rows)) {
    if (f.events.size() >= 6) break;
    f.events.push_back(ctx.EventRef(r, "allocation/fill called by the program"));
  }
  if (growth_calls > 0) {
    f.suggestions.push_back({"Collect the pieces in a list and concatenate once, or write into a preallocated buffer.",
                             "code",
                             "pieces.append(out)            # in the loop\nhistory = torch.cat(pieces)   # once, after it\n"
                             "# or: buf = torch.empty(max_rows, dim); buf[n:n + len(out)] = out; n += len(out)"});
  }
  f.suggestions.push_back({"Allocate scratch buffers once outside the loop and reuse them; use torch.empty instead of "
                           "torch.zeros when every element is overwritten anyway.",
                           "code", "scratch = torch.empty(rows, cols)   # once\n...\nscratch.zero_()  # only if needed"});
  if (ctx.device_kind() == DeviceKind::kCpu) {
    f.suggestions.push_back({"A faster host allocator helps when allocations stay frequent.", "env",
                             "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"});
  } else {
    f.suggestions.push_back({"Let the caching allocator grow segments instead of splitting them.", "env",
                             ctx.device_kind() == DeviceKind::kNpu ? "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"
                                                                   : "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"});
  }
  out.push_back(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> MakeMemoryChurnRule() { return std::make_unique<MemoryChurnRule>(); }

}  // namespace cprof
