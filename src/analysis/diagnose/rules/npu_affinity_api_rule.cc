// Rule npu_affinity_api: on Ascend traces, an optimizer step that runs as many separate
// operators where torch_npu offers a fused optimizer (torch_npu.optim.NpuFused*), which keeps the
// parameters in one flat buffer and updates them with a few kernels.
//
// Optimizer steps: host slices named "Optimizer.step#<Class>.step" (PyTorch's record_function in
// every torch.optim optimizer), or, without them, Python frames "torch/optim/<file>.py(N): step".
// Dispatched ops: the outermost "aten::" slices inside the step on its thread (n); kinds: their
// names without a trailing '_' (k). Share = optimizer host time / the steps' wall time.
// Fires when the share exceeds kThreshold (2%) and n > k (more ops than a fused step would run),
// unless the class is already fused (NpuFused*).
// Confidence terms:
//   magnitude   = 1 - 0.02 / share;
//   support     = n / (n + 3), n = ops dispatched in the optimizer steps;
//   consistency = share of steps that contain an optimizer step (1 without steps);
//   specificity = 1 when torch_npu has a fused class for this optimizer, 0.6 otherwise (the
//                 suggestion is then a generic one).
// Saving: optimizer host time x (1 - k / n): the fused step issues one op per kind of update
// instead of n ops, so its host time shrinks in proportion (device work is the same arithmetic).
#include <algorithm>
#include <array>
#include <memory>
#include <set>

#include <fmt/format.h>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rule.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/npu_rule_support.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.02;

// torch.optim / apex class -> torch_npu fused class.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kFused = {{
    {"SGD", "NpuFusedSGD"},
    {"Adam", "NpuFusedAdam"},
    {"AdamW", "NpuFusedAdamW"},
    {"Adadelta", "NpuFusedAdadelta"},
    {"RMSprop", "NpuFusedRMSprop"},
    {"Lamb", "NpuFusedLamb"},
    {"AdamP", "NpuFusedAdamP"},
    {"BertAdam", "NpuFusedBertAdam"},
    {"RMSpropTF", "NpuFusedRMSpropTF"},
}};
// torch/optim/<file>.py -> class.
constexpr std::array<std::pair<std::string_view, std::string_view>, 6> kFiles = {{
    {"sgd", "SGD"}, {"adam", "Adam"}, {"adamw", "AdamW"}, {"adadelta", "Adadelta"}, {"rmsprop", "RMSprop"},
    {"lamb", "Lamb"},
}};

std::string_view FusedFor(std::string_view cls) {
  for (const auto& [from, to] : kFused)
    if (from == cls) return to;
  return {};
}

// "Optimizer.step#SGD.step" -> "SGD"; "torch/optim/sgd.py(55): step" -> "SGD"; "" otherwise.
std::string OptimizerClass(std::string_view name) {
  constexpr std::string_view kRf = "Optimizer.step#";
  if (name.substr(0, kRf.size()) == kRf) {
    std::string_view rest = name.substr(kRf.size());
    return std::string(rest.substr(0, rest.find('.')));
  }
  const size_t at = name.find("torch/optim/");
  if (at == std::string_view::npos || name.size() < 6 || name.substr(name.size() - 6) != ": step") return {};
  std::string_view file = name.substr(at + 12);
  file = file.substr(0, file.find(".py"));
  for (const auto& [f, cls] : kFiles)
    if (f == file) return std::string(cls);
  return {};
}

struct OptStep {
  uint32_t row = 0;
  std::string cls;
  int64_t ops = 0;
  std::set<std::string> kinds;
};

class NpuAffinityApiRule final : public Rule {
 public:
  std::string_view name() const override { return "npu_affinity_api"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    const Trace& t = ctx.trace();
    if (!npu::IsNpuTrace(t)) return;
    std::vector<OptStep> found;
    bool record_function = false;
    for (uint32_t track = 0; track < t.tracks.size(); ++track) {
      if (t.tracks.kind[track] != TrackKind::kThread) continue;
      auto [b, e] = t.track_slices(TrackId{track});
      for (uint32_t r = b; r < e; ++r) {
        if (!ctx.InWindow(r) || t.slices.dur_ns[r] <= 0) continue;
        std::string_view name = t.Str(t.slices.name_id[r]);
        std::string cls = OptimizerClass(name);
        if (cls.empty()) continue;
        const bool rf = name[0] == 'O';
        if (rf && !record_function) found.clear();  // record_function spans win over Python frames
        record_function = record_function || rf;
        if (!rf && record_function) continue;
        OptStep s;
        s.row = r;
        s.cls = std::move(cls);
        // Outermost aten ops inside, on this track (slices are sorted by start within a track).
        const int64_t end = t.slice_end(r);
        int64_t covered_until = -1;
        for (uint32_t c = r + 1; c < e && t.slices.ts_ns[c] < end; ++c) {
          std::string_view op = t.Str(t.slices.name_id[c]);
          if (op.substr(0, 6) != "aten::" || t.slices.ts_ns[c] < covered_until) continue;
          covered_until = t.slice_end(c);
          ++s.ops;
          std::string kind(op.substr(6));
          while (!kind.empty() && kind.back() == '_') kind.pop_back();
          s.kinds.insert(kind);
        }
        found.push_back(std::move(s));
      }
    }
    if (found.empty()) return;

    // Nested matches (a Python frame inside another) are counted once: keep outermost per track.
    int64_t host_ns = 0, ops = 0;
    std::set<std::string> kinds, classes;
    std::vector<uint32_t> rows;
    for (const OptStep& s : found) {
      bool nested = false;
      for (const OptStep& o : found)
        if (&o != &s && t.slices.track_id[o.row] == t.slices.track_id[s.row] && t.slices.ts_ns[o.row] <= t.slices.ts_ns[s.row] &&
            t.slice_end(s.row) <= t.slice_end(o.row) && t.slices.dur_ns[o.row] > t.slices.dur_ns[s.row])
          nested = true;
      if (nested) continue;
      host_ns += t.slices.dur_ns[s.row];
      ops += s.ops;
      kinds.insert(s.kinds.begin(), s.kinds.end());
      classes.insert(s.cls);
      rows.push_back(s.row);
    }
    const std::string cls = *classes.begin();
    if (cls.rfind("NpuFused", 0) == 0) return;
    const int64_t k = std::max<int64_t>(1, static_cast<int64_t>(kinds.size()) * static_cast<int64_t>(rows.size()));
    if (ops <= k) return;

    const std::vector<Step>& steps = ctx.steps();
    int64_t wall = 0;
    for (const Step& s : steps) wall += s.dur_ns;
    if (wall <= 0) wall = ctx.span_ns();
    const double share = static_cast<double>(host_ns) / static_cast<double>(wall);
    const std::string_view fused = FusedFor(cls);

    Finding f;
    f.category = Category::kAffinityApi;
    ConfidenceTerms terms;
    terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
    terms.support = SupportFromCount(ops);
    terms.consistency = npu::StepConsistency(t, steps, rows);
    terms.specificity = fused.empty() ? 0.6 : 1.0;
    npu::SetConfidence(terms, f);
    if (f.confidence <= 0) return;

    const int64_t per_step = host_ns / static_cast<int64_t>(rows.size());
    f.title = fmt::format("Unfused {} optimizer: {} ops, {} of host time per step ({} of the step){}", cls,
                          ops / static_cast<int64_t>(rows.size()), npu::FormatNs(per_step), npu::Percent(share),
                          fused.empty() ? "" : fmt::format("; torch_npu.optim.{} fuses it", fused));
    std::string kind_list;
    for (const std::string& kd : kinds) kind_list += (kind_list.empty() ? "" : ", ") + kd;
    f.summary = fmt::format(
        "{} optimizer step(s) of torch.optim.{} dispatched {} operators ({} kind(s): {}), {} of host time. "
        "A fused NPU optimizer keeps all parameters in one flat buffer and updates them with one kernel "
        "per kind of update.",
        rows.size(), cls, ops, kinds.size(), kind_list, npu::FormatNs(host_ns));
    npu::SetCost(ctx, host_ns, f);
    f.saving_ns = static_cast<int64_t>(static_cast<double>(host_ns) * (1.0 - static_cast<double>(k) / static_cast<double>(ops)));
    f.saving_method = fmt::format(
        "Optimizer host time x (1 - {} / {}): a fused step runs one op per kind of update instead of every "
        "op seen.",
        k, ops);
    f.metrics = {{"optimizer_host_ns", static_cast<double>(host_ns), "ns"},
                 {"optimizer_step_fraction", share, "ratio"},
                 {"optimizer_steps", static_cast<double>(rows.size()), "count"},
                 {"optimizer_ops", static_cast<double>(ops), "count"},
                 {"optimizer_op_kinds", static_cast<double>(kinds.size()), "count"}};
    for (size_t i = 0; i < rows.size() && i < 5; ++i)
      f.events.push_back(ctx.EventRef(rows[i], fmt::format("{}.step: unfused", cls)));
    if (!fused.empty()) {
      f.suggestions.push_back({fmt::format("Use torch_npu's fused {} (same arguments as torch.optim.{}).", cls, cls),
                               "code",
                               fmt::format("optimizer = torch_npu.optim.{}(model.parameters(), lr=args.lr{})", fused,
                                           cls == "SGD" ? ", momentum=args.momentum, weight_decay=args.weight_decay"
                                                        : "")});
    } else {
      f.suggestions.push_back({"Use the multi-tensor (foreach) implementation at least, or a fused optimizer "
                               "from torch_npu.optim if one matches.",
                               "code", fmt::format("optimizer = torch.optim.{}(params, lr=lr, foreach=True)", cls)});
    }
    f.suggestions.push_back({"With apex on NPU, the combined-gradient fused optimizers do the same for mixed "
                             "precision training.",
                             "code", "model, optimizer = apex.amp.initialize(model, optimizer, opt_level='O2', combine_grad=True)"});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeNpuAffinityApiRule() { return std::make_unique<NpuAffinityApiRule>(); }

}  // namespace cprof
