// launch_overhead: many tiny operators or kernels, so per-op dispatch and kernel launch cost, not
// the work itself, sets the step time.
//
// Device traces (GPU/NPU): the device runs short kernels with short gaps between them, the
// signature of a device waiting for the host to launch the next one. Cost = the gaps between
// consecutive device work inside steps (or the device-active span) shorter than kLaunchGapNs
// (longer gaps are host work, see device_idle/host_gap). Fires when that exceeds kDeviceThreshold
// of wall time.
// Host-only traces (CPU): storms of tiny operators: runs of at least kMinStorm consecutive
// outermost operators on the main thread whose name's median duration is under kTinyOpNs (one
// instance stretched by preemption does not break a run), each starting within kStormGapNs of
// the previous one's end. Cost = the storms' span, the Python between the ops included (the
// interpreter's per-call cost is part of the per-op cost); fires when that exceeds kCpuThreshold
// of wall time.
// Confidence terms (confidence.h):
//  - magnitude   = MagnitudeOverThreshold(cost share of wall time, threshold above);
//  - support     = SupportFromCount(steps) (or 1 window without steps);
//  - consistency = share of steps whose own cost share is above the threshold;
//  - specificity = device: 0.5 + 0.5 x share of kernels under kShortKernelNs (short gaps between
//    long kernels are less likely launch-bound); CPU: 0.5 + 0.5 x share of the main thread's
//    outermost ops that are in storms.
// Saving: device: sum over those gaps of (gap - kGraphGapNs), what graph replay or fusion leaves
// between kernels; CPU: kStormRemovable of the storms' span (vectorized, a storm becomes a few
// ops; each op in it does under 10 us of work, mostly dispatch: a stated assumption).
#include <algorithm>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "analysis/device_work.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/rule_support.h"

namespace cprof {
namespace {

constexpr int64_t kLaunchGapNs = 100'000;
constexpr int64_t kGraphGapNs = 2'000;
constexpr int64_t kShortKernelNs = 10'000;
constexpr int64_t kTinyOpNs = 10'000;
constexpr int64_t kStormGapNs = 50'000;
constexpr size_t kMinStorm = 8;
constexpr double kStormRemovable = 0.8;
constexpr double kDeviceThreshold = 0.10;
constexpr double kCpuThreshold = 0.20;

struct NameCount {
  uint32_t first_row;
  int64_t count = 0;
  int64_t total = 0;
};

// The most frequent names among `rows` (by count), each cited by its first row.
std::vector<std::pair<StringId, NameCount>> TopNames(const Trace& t, const std::vector<uint32_t>& rows, size_t n) {
  std::unordered_map<uint32_t, NameCount> by;
  for (uint32_t r : rows) {
    auto [it, fresh] = by.try_emplace(Index(t.slices.name_id[r]), NameCount{r});
    it->second.count++;
    it->second.total += std::max<int64_t>(0, t.slices.dur_ns[r]);
  }
  std::vector<std::pair<StringId, NameCount>> v;
  for (auto& [id, c] : by) v.push_back({StringId{id}, c});
  std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.second.count > b.second.count; });
  if (v.size() > n) v.resize(n);
  return v;
}

class LaunchOverheadRule final : public Rule {
 public:
  std::string_view name() const override { return "launch_overhead"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    if (ctx.device_intervals().empty()) {
      RunHost(ctx, out);
    } else {
      RunDevice(ctx, out);
    }
  }

 private:
  void RunDevice(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
    const Trace& t = ctx.trace();
    std::vector<Step> windows = ctx.steps();
    if (windows.empty()) {
      const std::optional<GpuTimeline>& tl = ctx.device_timeline();
      if (!tl) return;
      windows.push_back(Step{.id = -1, .start_ns = tl->start_ns, .dur_ns = tl->total_ns});
    }
    const IntervalSet& all = ctx.device_intervals().all;
    int64_t gap_total = 0, saving = 0, wall = 0, gaps = 0, steps_over = 0;
    for (const Step& w : windows) {
      const IntervalSet busy = all.Clip(w.start_ns, w.end_ns());
      int64_t step_gaps = 0;
      for (size_t i = 1; i < busy.parts().size(); ++i) {
        const int64_t g = busy.parts()[i].start - busy.parts()[i - 1].end;
        if (g <= 0 || g >= kLaunchGapNs) continue;
        step_gaps += g;
        saving += std::max<int64_t>(0, g - kGraphGapNs);
        ++gaps;
      }
      gap_total += step_gaps;
      wall += w.dur_ns;
      if (w.dur_ns > 0 && step_gaps > kDeviceThreshold * w.dur_ns) ++steps_over;
    }
    if (wall <= 0 || gap_total <= 0) return;
    std::vector<uint32_t> kernels;
    int64_t short_kernels = 0;
    const DeviceWorkClassifier& classify = ctx.device_work();
    for (uint32_t r : ctx.device_rows()) {
      if (classify(r) != DeviceWork::kComputation) continue;
      kernels.push_back(r);
      if (t.slices.dur_ns[r] < kShortKernelNs) ++short_kernels;
    }
    if (kernels.empty()) return;
    const double share = static_cast<double>(gap_total) / static_cast<double>(wall);
    const double short_share = static_cast<double>(short_kernels) / static_cast<double>(kernels.size());
    std::vector<int64_t> durs;
    for (uint32_t r : kernels) durs.push_back(t.slices.dur_ns[r]);
    std::nth_element(durs.begin(), durs.begin() + durs.size() / 2, durs.end());
    const int64_t median = durs[durs.size() / 2];

    Finding f;
    f.category = Category::kLaunchOverhead;
    f.confidence_terms.magnitude = MagnitudeOverThreshold(share, kDeviceThreshold);
    f.confidence_terms.support = SupportFromCount(static_cast<int64_t>(windows.size()));
    f.confidence_terms.consistency = static_cast<double>(steps_over) / static_cast<double>(windows.size());
    f.confidence_terms.specificity = 0.5 + 0.5 * short_share;
    f.confidence = ComputeConfidence(f.confidence_terms);
    if (f.confidence <= 0) return;
    const int64_t per_window = static_cast<int64_t>(kernels.size()) / static_cast<int64_t>(windows.size());
    f.title = fmt::format("{} kernels{}, {} under 10 us: launch gaps are {} of {}", per_window,
                          ctx.steps().empty() ? "" : " per step", rules::Percent(short_share), rules::Percent(share),
                          ctx.steps().empty() ? "the device-active time" : "step time");
    f.summary = fmt::format(
        "The device runs {} kernels (median {}) and waits between them: {} gaps shorter than {} add up to {} of "
        "{}. Each launch costs host time (framework dispatch plus the runtime call), and kernels this short finish "
        "before the next one is launched, so the host's launch rate sets the step time.",
        kernels.size(), rules::FormatNs(median), gaps, rules::FormatNs(kLaunchGapNs), rules::FormatNs(gap_total),
        rules::FormatNs(wall));
    f.metrics = {{"kernels", static_cast<double>(kernels.size()), "count"},
                 {"kernels_per_step", static_cast<double>(per_window), "count"},
                 {"short_kernel_fraction", short_share, "ratio"},
                 {"median_kernel_ns", static_cast<double>(median), "ns"},
                 {"launch_gap_ns", static_cast<double>(gap_total), "ns"},
                 {"launch_gap_fraction", share, "ratio"},
                 {"launch_gaps", static_cast<double>(gaps), "count"}};
    for (const auto& [name, c] : TopNames(t, kernels, 5))
      f.events.push_back(ctx.EventRef(c.first_row, fmt::format("{} launches, {} in total", c.count, rules::FormatNs(c.total))));
    f.saving_ns = saving;
    f.saving_method = fmt::format(
        "sum over the inter-kernel gaps under {} of (gap - {}), the spacing graph replay or fused kernels leave", 
        rules::FormatNs(kLaunchGapNs), rules::FormatNs(kGraphGapNs));
    rules::SetCost(ctx, gap_total, f);
    if (rules::FrameworkOf(ctx) == rules::Framework::kTorchNpu) {
      f.suggestions.push_back({"Dispatch operators from the task queue in a second stage, so Python does not wait "
                               "for each launch.",
                               "env", "TASK_QUEUE_ENABLE=2"});
      f.suggestions.push_back({"Compile the model into graphs so the device runs them without per-op launches.",
                               "code",
                               "import torchair\nmodel = torch.compile(model, backend=torchair.get_npu_backend())"});
    } else {
      f.suggestions.push_back({"Capture the steady-state step in a CUDA graph (torch.compile does it with "
                               "reduce-overhead) so one launch replays all kernels.",
                               "code", "model = torch.compile(model, mode=\"reduce-overhead\")"});
      f.suggestions.push_back({"Or capture by hand when shapes are static.", "code",
                               "g = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    static_out = model(static_in)\n"
                               "# each step: static_in.copy_(batch); g.replay()"});
      f.suggestions.push_back({"Larger batches amortize each launch over more work.", "", ""});
    }
    out.push_back(std::move(f));
  }

  void RunHost(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
    const Trace& t = ctx.trace();
    const SliceTable& sl = t.slices;
    const std::optional<TrackId> main = ctx.main_thread();
    if (!main) return;
    const std::vector<Step>& windows = ctx.steps_or_span();
    const std::vector<int64_t>& self = ctx.self_ns();
    // The outermost operators on the main thread (their parent is no operator: the step or none).
    std::vector<uint32_t> ops;
    {
      std::unordered_set<uint32_t> is_op;
      for (uint32_t r : ctx.host_op_rows())
        if (sl.track_id[r] == *main) is_op.insert(r);
      for (uint32_t r : ctx.host_op_rows()) {
        if (sl.track_id[r] != *main || rules::StepIndexAt(windows, sl.ts_ns[r]) < 0) continue;
        const SliceId p = sl.parent_id[r];
        if (p == kNoSlice || !is_op.count(Index(p))) ops.push_back(r);
      }
    }
    if (ops.empty()) return;
    // An op is tiny by its name's median duration, so that one instance stretched by preemption
    // (a busy machine) does not break a storm.
    std::unordered_map<uint32_t, std::vector<int64_t>> by_name;
    for (uint32_t r : ops) by_name[Index(sl.name_id[r])].push_back(sl.dur_ns[r]);
    std::unordered_map<uint32_t, bool> tiny_name;
    for (auto& [id, v] : by_name) {
      std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
      tiny_name[id] = v[v.size() / 2] < kTinyOpNs;
    }
    auto is_tiny = [&](uint32_t r) { return tiny_name[Index(sl.name_id[r])]; };
    // Storms: runs of >= kMinStorm consecutive tiny outermost ops, each starting within
    // kStormGapNs of the previous one's end. Their span (Python between the ops included) is the
    // cost: per-op dispatch in the framework and in the interpreter.
    std::vector<int64_t> per_step(windows.size(), 0);
    std::vector<uint32_t> tiny;
    int64_t cost = 0, tiny_ops = 0, storms = 0;
    for (size_t i = 0; i < ops.size();) {
      if (!is_tiny(ops[i])) {
        ++i;
        continue;
      }
      size_t j = i + 1;
      while (j < ops.size() && is_tiny(ops[j]) && sl.ts_ns[ops[j]] - t.slice_end(ops[j - 1]) < kStormGapNs &&
             rules::StepIndexAt(windows, sl.ts_ns[ops[j]]) == rules::StepIndexAt(windows, sl.ts_ns[ops[i]]))
        ++j;
      if (j - i >= kMinStorm) {
        const int64_t span = t.slice_end(ops[j - 1]) - sl.ts_ns[ops[i]];
        cost += span;
        per_step[rules::StepIndexAt(windows, sl.ts_ns[ops[i]])] += span;
        tiny_ops += static_cast<int64_t>(j - i);
        ++storms;
        for (size_t k = i; k < j; ++k) tiny.push_back(ops[k]);
      }
      i = j;
    }
    if (cost <= 0) return;
    int64_t wall = 0, steps_over = 0;
    for (size_t i = 0; i < windows.size(); ++i) {
      wall += windows[i].dur_ns;
      if (windows[i].dur_ns > 0 && per_step[i] > kCpuThreshold * windows[i].dur_ns) ++steps_over;
    }
    if (wall <= 0) return;
    const double share = static_cast<double>(cost) / static_cast<double>(wall);
    const double tiny_share = static_cast<double>(tiny_ops) / static_cast<double>(ops.size());
    int64_t tiny_self = 0;
    for (uint32_t r : tiny) tiny_self += self[r];

    Finding f;
    f.category = Category::kLaunchOverhead;
    f.confidence_terms.magnitude = MagnitudeOverThreshold(share, kCpuThreshold);
    f.confidence_terms.support = SupportFromCount(static_cast<int64_t>(windows.size()));
    f.confidence_terms.consistency = static_cast<double>(steps_over) / static_cast<double>(windows.size());
    f.confidence_terms.specificity = 0.5 + 0.5 * tiny_share;
    f.confidence = ComputeConfidence(f.confidence_terms);
    if (f.confidence <= 0) return;
    const int64_t per_window = tiny_ops / static_cast<int64_t>(windows.size());
    f.title = fmt::format("{} tiny operators{} (under {} each) back to back: {} of {}", per_window,
                          ctx.steps().empty() ? "" : " per step", rules::FormatNs(kTinyOpNs), rules::Percent(share),
                          ctx.steps().empty() ? "the trace" : "step time");
    f.summary = fmt::format(
        "{} runs of at least {} consecutive operators that each take under {} ({} operators in all, {} of the "
        "main thread's) span {} of {}. Each does almost no work: the framework's dispatch and the Python that calls "
        "it are the time. One vectorized expression, or a compiled function, does the same work in a few ops.",
        storms, kMinStorm, rules::FormatNs(kTinyOpNs), tiny_ops, rules::Percent(tiny_share), rules::FormatNs(cost),
        rules::FormatNs(wall));
    f.metrics = {{"ops", static_cast<double>(ops.size()), "count"},
                 {"tiny_ops_per_step", static_cast<double>(per_window), "count"},
                 {"tiny_op_fraction", tiny_share, "ratio"},
                 {"tiny_op_storm_ns", static_cast<double>(cost), "ns"},
                 {"tiny_op_storm_fraction", share, "ratio"},
                 {"tiny_op_self_ns", static_cast<double>(tiny_self), "ns"},
                 {"storms", static_cast<double>(storms), "count"}};
    for (const auto& [name, c] : TopNames(t, tiny, 5))
      f.events.push_back(ctx.EventRef(c.first_row, fmt::format("{} calls, {} in total", c.count, rules::FormatNs(c.total))));
    f.saving_ns = static_cast<int64_t>(kStormRemovable * static_cast<double>(cost));
    f.saving_method = "80% of the storms' span: vectorized, a run becomes a few ops; each op in it does under 10 us of "
                      "work, mostly dispatch (an assumption, stated)";
    rules::SetCost(ctx, cost, f);
    f.suggestions.push_back({"Compile or script the model so the framework fuses the small operators.", "code",
                             "model = torch.jit.script(model)  # torch >= 2: model = torch.compile(model)"});
    f.suggestions.push_back({"Batch the work: process several samples per call instead of a Python loop of small "
                             "tensor ops.",
                             "", ""});
    f.suggestions.push_back({"Run inference without autograd bookkeeping.", "code",
                             "with torch.inference_mode():\n    out = model(x)"});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeLaunchOverheadRule() { return std::make_unique<LaunchOverheadRule>(); }

}  // namespace cprof
