// affinity_api: the code does by hand what a fused or device-affine API does in one call. Today:
// an optimizer that updates parameters one by one (a loop of add_/mul_/addcdiv_/... per
// parameter), which the foreach (multi-tensor) or fused implementation replaces with a few calls
// over all parameters.
// GPU and CPU traces; Ascend traces are npu_affinity_api_rule.cc's, from torch_npu's own tables.
//
// Update loops are found two ways: (1) the optimizer steps the PyTorch profiler names
// ("Optimizer.step#SGD.step"), counting the elementwise update ops (kUpdateOps, by root name)
// inside; an optimizer already using _foreach_*/_fused_* ops, or whose class name says
// Fused/foreach, is not flagged; (2) hand-written loops: a run of consecutive sibling operators
// that are update ops (or kGlueOps, the scalar wrapping between them) with at least kMinOps
// arithmetic updates (copy_ and zero_ may sit in the loop but do not count: a loop of copies
// moves tensors, it does not update them), at least half of them in place (add_, mul_, ...),
// outside any optimizer step. On device traces an op counts only if it launched device work (host-side
// scalar bookkeeping such as step counters is not a per-parameter kernel). A loop must have at
// least kMinOps such ops to count.
// Confidence terms (confidence.h):
//  - magnitude   = MagnitudeOverThreshold(update-loop time / wall time, kThreshold): a loop that
//    costs little is not worth a finding however many ops it runs;
//  - support     = SupportFromCount(update loops);
//  - consistency = share of steps with an update loop (1 without steps);
//  - specificity = 1 for named optimizer steps, 0.8 for hand-written loops (found by shape).
// Cost: the loops' wall time on their host thread (the optimizer step's slice; a hand-written
// loop's span from its first op to its last, the Python between the ops included): the time the
// loop holds up the step, on CPU, and on devices where the host launches the next step after it.
// Saving: cost x (1 - kForeachShare): PyTorch's foreach optimizers run the same update in ~1/3 of
// the per-parameter loop's time for many small parameters (a stated assumption; the fused
// variants do better).
#include <algorithm>
#include <array>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/rule_support.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.05;
constexpr int64_t kMinOps = 16;
constexpr double kForeachShare = 1.0 / 3.0;
constexpr std::array<std::string_view, 14> kUpdateOps = {"add",  "mul",     "addcdiv", "addcmul", "div", "sqrt",
                                                          "lerp", "sub",     "maximum", "copy",    "zero", "neg",
                                                          "mul_", "clamp"};

// Ops a Python update loop runs between its updates (wrapping a Python scalar into a tensor).
constexpr std::array<std::string_view, 3> kGlueOps = {"to", "_to_copy", "detach"};

class AffinityApiRule final : public Rule {
 public:
  std::string_view name() const override { return "affinity_api"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    if (ctx.device_kind() == DeviceKind::kNpu) return;  // npu_affinity_api_rule.cc reads torch_npu's own tables
    const Trace& t = ctx.trace();
    const SliceTable& s = t.slices;
    const bool device = !ctx.device_intervals().empty();
    const rules::LaunchedDeviceTime launched(ctx);
    struct OptStep {
      uint32_t row;
      int64_t ops = 0;
      int64_t cost = 0;
      bool multi_tensor = false;
      bool named = true;
    };
    auto is_update = [&](uint32_t d) {
      const std::string root = rules::OpRoot(t.Str(s.name_id[d]));
      return std::find(kUpdateOps.begin(), kUpdateOps.end(), root) != kUpdateOps.end() &&
             (!device || launched.Under(d) > 0);
    };
    std::vector<OptStep> opt;
    std::string optimizer;
    std::vector<std::pair<int64_t, int64_t>> named_spans;  // (start, end) of Optimizer.step slices
    for (uint32_t track = 0; track < t.tracks.size(); ++track) {
      if (t.tracks.kind[track] != TrackKind::kThread) continue;
      auto [b, e] = t.track_slices(TrackId{track});
      for (uint32_t r = b; r < e; ++r) {
        if (!ctx.InWindow(r) || s.dur_ns[r] <= 0) continue;
        const std::string_view name = t.Str(s.name_id[r]);
        if (!name.starts_with("Optimizer.step#")) continue;
        named_spans.push_back({s.ts_ns[r], t.slice_end(r)});
        OptStep o{r};
        // Fused and multi-tensor optimizers ("FusedAdam", "foreach") are what we would suggest.
        o.multi_tensor = rules::ContainsNoCase(name, "fused") || rules::ContainsNoCase(name, "foreach") ||
                         rules::ContainsNoCase(name, "multi_tensor");
        for (uint32_t d = r + 1; d < e && s.ts_ns[d] < t.slice_end(r) && s.depth[d] > s.depth[r]; ++d) {
          const std::string base = rules::OpBase(t.Str(s.name_id[d]));
          if (base.starts_with("_foreach_") || base.starts_with("_fused_")) o.multi_tensor = true;
          // Only ops directly under the step or one level down (inside the optimizer's helper).
          if (s.depth[d] <= s.depth[r] + 2 && is_update(d)) ++o.ops;
        }
        o.cost = s.dur_ns[r];
        if (optimizer.empty()) optimizer = std::string(name.substr(std::string_view("Optimizer.step#").size()));
        if (o.ops >= kMinOps) opt.push_back(o);
      }
    }
    // Hand-written loops: runs of sibling update ops outside any named optimizer step.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> siblings;
    for (uint32_t r : ctx.host_op_rows()) siblings[{Index(s.track_id[r]), Index(s.parent_id[r])}].push_back(r);
    auto inside_named = [&](uint32_t r) {
      for (const auto& [a, z] : named_spans)
        if (s.ts_ns[r] >= a && s.ts_ns[r] < z) return true;
      return false;
    };
    for (const auto& [key, rows] : siblings) {
      for (size_t i = 0; i < rows.size();) {
        if (!is_update(rows[i])) {
          ++i;
          continue;
        }
        size_t j = i;
        int64_t in_place = 0, updates = 0;
        while (j < rows.size() && !inside_named(rows[j])) {
          const std::string base = rules::OpBase(t.Str(s.name_id[rows[j]]));
          if (is_update(rows[j])) {
            // copy_/zero_ loops alone move or clear tensors (a batch to the device, zero_grad):
            // they may sit in an update loop but do not make one.
            const std::string root = rules::OpRoot(base);
            if (root != "copy" && root != "zero") {
              ++updates;
              in_place += base.ends_with("_");
            }
          } else if (std::find(kGlueOps.begin(), kGlueOps.end(), base) == kGlueOps.end()) {
            break;
          }
          ++j;
        }
        if (updates >= kMinOps && 2 * in_place >= updates) {
          OptStep o{rows[i]};
          o.named = false;
          o.ops = updates;
          o.cost = t.slice_end(rows[j - 1]) - s.ts_ns[rows[i]];  // the loop's span, Python between ops included
          opt.push_back(o);
        }
        i = std::max(j, i + 1);
      }
    }
    std::erase_if(opt, [](const OptStep& o) { return o.multi_tensor; });
    if (opt.empty()) return;
    int64_t ops = 0, cost = 0, named = 0;
    std::set<int> steps_hit;
    const std::vector<Step>& windows = ctx.steps_or_span();
    for (const OptStep& o : opt) {
      ops += o.ops;
      cost += o.cost;
      named += o.named;
      if (int w = rules::StepIndexAt(windows, s.ts_ns[o.row]); w >= 0) steps_hit.insert(w);
    }
    int64_t wall = 0;
    for (const Step& w : windows) wall += w.dur_ns;
    const double per_step = static_cast<double>(ops) / static_cast<double>(opt.size());
    if (cost <= 0 || wall <= 0) return;
    const double share = static_cast<double>(cost) / static_cast<double>(wall);

    Finding f;
    f.category = Category::kAffinityApi;
    f.confidence_terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
    f.confidence_terms.support = SupportFromCount(static_cast<int64_t>(opt.size()));
    f.confidence_terms.consistency = static_cast<double>(steps_hit.size()) / static_cast<double>(windows.size());
    f.confidence_terms.specificity = 2 * named >= static_cast<int64_t>(opt.size()) ? 1.0 : 0.8;
    f.confidence = ComputeConfidence(f.confidence_terms);
    if (f.confidence <= 0) return;
    if (size_t dot = optimizer.find('.'); dot != std::string::npos) optimizer.resize(dot);  // "SGD.step" -> "SGD"
    f.title = fmt::format("{} updates parameters one by one: {:.0f} elementwise ops per update, {} of {}",
                          named > 0 && !optimizer.empty() ? optimizer : std::string("a hand-written optimizer loop"),
                          per_step, rules::Percent(share), ctx.steps().empty() ? "the trace" : "step time");
    f.summary = fmt::format(
        "Each of the {} parameter updates runs {:.0f} per-parameter elementwise ops (add_, mul_, addcdiv_, ...), one "
        "call and one kernel per parameter and op. The foreach implementation updates all parameters with a few "
        "multi-tensor calls; the fused one with one kernel.",
        opt.size(), per_step);
    f.metrics = {{"optimizer_steps", static_cast<double>(opt.size()), "count"},
                 {"per_parameter_ops_per_step", per_step, "count"},
                 {"optimizer_ns", static_cast<double>(cost), "ns"},
                 {"optimizer_fraction", share, "ratio"},
                 {"hand_written_loops", static_cast<double>(static_cast<int64_t>(opt.size()) - named), "count"}};
    std::sort(opt.begin(), opt.end(), [](const OptStep& a, const OptStep& b) { return a.cost > b.cost; });
    for (size_t i = 0; i < opt.size() && i < 3; ++i)
      f.events.push_back(ctx.EventRef(opt[i].row, fmt::format("{} per-parameter ops, {}", opt[i].ops, rules::FormatNs(opt[i].cost))));
    f.saving_ns = static_cast<int64_t>(static_cast<double>(cost) * (1 - kForeachShare));
    f.saving_method = "two thirds of the optimizer's time: foreach optimizers run the update in about a third of the "
                      "per-parameter loop's time for many small parameters (assumed)";
    rules::SetCost(ctx, cost, f);
    switch (rules::FrameworkOf(ctx)) {
      case rules::Framework::kTorchNpu:
        f.suggestions.push_back({"Use torch_npu's fused optimizer, which updates all parameters in one kernel.", "code",
                                 fmt::format("from torch_npu.optim import NpuFused{0}\noptimizer = NpuFused{0}(model.parameters(), lr=lr)",
                                             optimizer.empty() ? "SGD" : optimizer)});
        break;
      case rules::Framework::kPytorchCuda:
        f.suggestions.push_back({"Use the fused (one kernel) or foreach (multi-tensor) implementation.", "code",
                                 fmt::format("optimizer = torch.optim.{}(model.parameters(), lr=lr, fused=True)  # or foreach=True",
                                             optimizer.empty() ? "AdamW" : optimizer)});
        break;
      case rules::Framework::kPytorchCpu:
        f.suggestions.push_back({"Use the foreach (multi-tensor) implementation.", "code",
                                 fmt::format("optimizer = torch.optim.{}(model.parameters(), lr=lr, foreach=True)",
                                             optimizer.empty() ? "SGD" : optimizer)});
        break;
    }
    f.suggestions.push_back({"Fewer, larger parameter tensors also help (e.g. flatten small biases into one buffer).", "", ""});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeAffinityApiRule() { return std::make_unique<AffinityApiRule>(); }

}  // namespace cprof
