// fusion_candidate: frequent operator sequences that one fused operator replaces: a GELU, softmax
// or layer norm written out of elementwise ops, x * sigmoid(x) (SiLU), convolution + batch norm +
// ReLU at inference (batch norm folds into the convolution), and on devices chains of back-to-back
// elementwise kernels (what a compiler fuses into one).
//
// Matching: operators are read per parent (siblings in call order on one thread); at each
// position the longest run (up to kMaxRun ops) whose ops all belong to a pattern's vocabulary and
// that contains every required op (any of each group) is one match. Names are compared by their
// root (rule_support OpRoot: "aten::add_" -> "add"), so the rule sees any model written this way.
// Cost per match: host-only traces: the ops' host time; device traces: the device time of the
// kernels they launched. One finding per pattern that exceeds kThreshold of wall time with at
// least kMinMatches matches.
// Confidence terms (confidence.h):
//  - magnitude   = MagnitudeOverThreshold(pattern cost share of wall time, kThreshold);
//  - support     = SupportFromCount(matches);
//  - consistency = share of steps with a match (1 without steps);
//  - specificity = per pattern: 1 for GELU/softmax/layer norm decompositions (those op sets
//    compute exactly that function), 0.9 conv+bn+relu at inference, 0.7 SiLU (sigmoid*mul also
//    gates LSTMs), 0.6 elementwise kernel chains (fusable, but the fused kernel is the compiler's).
// Saving: cost x (1 - 1/k) for matches of k ops on average: the fused op makes one pass over the
// data instead of k (these ops are memory-bound), an estimate, stated.
#include <algorithm>
#include <array>
#include <map>
#include <set>
#include <unordered_set>

#include <fmt/format.h>

#include "analysis/device_work.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/rule_support.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.02;
constexpr int64_t kMinMatches = 3;
constexpr size_t kMaxRun = 12;
constexpr size_t kMinChain = 4;

struct Pattern {
  std::string_view id;
  std::string_view what;      // the function the ops compute
  std::string_view fused_op;  // what replaces them
  std::set<std::string> vocabulary;
  std::vector<std::vector<std::string>> required;  // each group: any of these
  double specificity;
  bool ordered_triplet = false;  // conv -> bn -> act in this order, nothing between
};

const std::vector<Pattern>& Patterns() {
  static const std::vector<Pattern> p = {
      {"gelu_tanh", "GELU (tanh approximation) written as mul/pow/add/tanh",
       "torch.nn.functional.gelu(x, approximate=\"tanh\")", {"mul", "pow", "add", "tanh"},
       {{"pow"}, {"tanh"}, {"mul"}, {"add"}}, 1.0},
      {"gelu_erf", "GELU written as mul/div/erf/add", "torch.nn.functional.gelu(x)",
       {"mul", "div", "erf", "add", "sqrt"}, {{"erf"}, {"mul"}, {"add"}}, 1.0},
      {"softmax", "softmax written as exp/sum/div", "torch.softmax(x, dim=-1)",
       {"max", "amax", "sub", "exp", "sum", "div"}, {{"exp"}, {"sum"}, {"div"}}, 1.0},
      {"layer_norm", "layer norm written as mean/var/sub/sqrt/div", "torch.nn.functional.layer_norm(x, shape, w, b)",
       {"mean", "var", "var_mean", "sub", "pow", "add", "sqrt", "rsqrt", "div", "mul"},
       {{"mean", "var_mean"}, {"sub"}, {"sqrt", "rsqrt"}, {"var", "pow", "var_mean"}}, 1.0},
      {"silu", "SiLU written as x * sigmoid(x)", "torch.nn.functional.silu(x)", {"sigmoid", "mul"},
       {{"sigmoid"}, {"mul"}}, 0.7},
      {"conv_bn_act", "convolution + batch norm + activation at inference",
       "one convolution with batch norm folded in (torch.ao.quantization.fuse_modules / torch.fx)",
       {"conv1d", "conv2d", "conv3d", "convolution", "batch_norm", "relu", "relu6", "hardtanh", "silu"},
       {{"conv1d", "conv2d", "conv3d", "convolution"}, {"batch_norm"}, {"relu", "relu6", "hardtanh", "silu"}}, 0.9,
       true},
  };
  return p;
}

bool Satisfied(const Pattern& p, const std::vector<std::string>& roots, size_t i, size_t j) {
  if (p.ordered_triplet) {
    return j - i == 3 && p.required[0].end() != std::find(p.required[0].begin(), p.required[0].end(), roots[i]) &&
           roots[i + 1] == "batch_norm" &&
           p.required[2].end() != std::find(p.required[2].begin(), p.required[2].end(), roots[i + 2]);
  }
  for (const std::vector<std::string>& group : p.required) {
    bool any = false;
    for (size_t k = i; k < j && !any; ++k) any = std::find(group.begin(), group.end(), roots[k]) != group.end();
    if (!any) return false;
  }
  return true;
}

struct Tally {
  int64_t matches = 0;
  int64_t ops = 0;
  int64_t cost = 0;
  std::unordered_set<int> steps;
  std::vector<std::pair<uint32_t, int64_t>> examples;  // first row of a match, its cost
};

class FusionCandidateRule final : public Rule {
 public:
  std::string_view name() const override { return "fusion_candidate"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    const Trace& t = ctx.trace();
    const SliceTable& s = t.slices;
    const bool device = !ctx.device_intervals().empty();
    const std::vector<Step>& windows = ctx.steps_or_span();
    int64_t wall = 0;
    for (const Step& w : windows) wall += w.dur_ns;
    if (wall <= 0) return;
    const rules::LaunchedDeviceTime launched(ctx);

    // Siblings in call order: (track, parent) -> rows. host_op_rows is sorted by start per track.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<uint32_t>> siblings;
    bool training = false;
    for (uint32_t r : ctx.host_op_rows()) {
      siblings[{Index(s.track_id[r]), Index(s.parent_id[r])}].push_back(r);
      if (!training && rules::ContainsNoCase(t.Str(s.name_id[r]), "backward")) training = true;
    }
    std::map<std::string_view, Tally> tallies;
    for (const auto& [key, rows] : siblings) {
      std::vector<std::string> roots;
      roots.reserve(rows.size());
      for (uint32_t r : rows) roots.push_back(rules::OpRoot(t.Str(s.name_id[r])));
      for (size_t i = 0; i < rows.size();) {
        bool matched = false;
        for (const Pattern& p : Patterns()) {
          if (p.ordered_triplet && training) continue;
          if (!p.vocabulary.count(roots[i])) continue;
          size_t j = i;
          while (j < rows.size() && j - i < (p.ordered_triplet ? 3 : kMaxRun) && p.vocabulary.count(roots[j])) ++j;
          if (!Satisfied(p, roots, i, j)) continue;
          Tally& tally = tallies[p.id];
          int64_t cost = 0;
          for (size_t k = i; k < j; ++k) cost += device ? launched.Under(rows[k]) : std::max<int64_t>(0, s.dur_ns[rows[k]]);
          tally.matches++;
          tally.ops += static_cast<int64_t>(j - i);
          tally.cost += cost;
          tally.examples.push_back({rows[i], cost});
          if (int w = rules::StepIndexAt(windows, s.ts_ns[rows[i]]); w >= 0) tally.steps.insert(w);
          i = j;
          matched = true;
          break;
        }
        if (!matched) ++i;
      }
    }
    for (const Pattern& p : Patterns()) {
      auto it = tallies.find(p.id);
      if (it != tallies.end()) Emit(ctx, p.id, p.what, p.fused_op, p.specificity, it->second, wall, out);
    }
    if (device) DeviceChains(ctx, wall, out);
  }

 private:
  // Back-to-back elementwise kernels on one stream (no other kernel between them).
  void DeviceChains(const DiagnosisContext& ctx, int64_t wall, std::vector<Finding>& out) const {
    const Trace& t = ctx.trace();
    const SliceTable& s = t.slices;
    const std::vector<Step>& windows = ctx.steps_or_span();
    const DeviceWorkClassifier& classify = ctx.device_work();
    std::map<uint32_t, std::vector<uint32_t>> by_stream;
    for (uint32_t r : ctx.device_rows())
      if (classify(r) == DeviceWork::kComputation) by_stream[Index(s.track_id[r])].push_back(r);
    Tally tally;
    for (const auto& [track, rows] : by_stream) {
      for (size_t i = 0; i < rows.size();) {
        size_t j = i;
        while (j < rows.size() && rules::ContainsNoCase(t.Str(s.name_id[rows[j]]), "elementwise")) ++j;
        if (j - i >= kMinChain) {
          int64_t cost = 0;
          for (size_t k = i; k < j; ++k) cost += s.dur_ns[rows[k]];
          tally.matches++;
          tally.ops += static_cast<int64_t>(j - i);
          tally.cost += cost;
          tally.examples.push_back({rows[i], cost});
          if (int w = rules::StepIndexAt(windows, s.ts_ns[rows[i]]); w >= 0) tally.steps.insert(w);
        }
        i = std::max(j, i + 1);
      }
    }
    if (tally.matches > 0)
      Emit(ctx, "elementwise_chain", fmt::format("chains of {}+ back-to-back elementwise kernels", kMinChain),
           "one fused kernel per chain (torch.compile generates it)", 0.6, tally, wall, out);
  }

  static void Emit(const DiagnosisContext& ctx, std::string_view id, std::string_view what, std::string_view fused,
                   double specificity, Tally& tally, int64_t wall, std::vector<Finding>& out) {
    if (tally.matches < kMinMatches || tally.cost <= 0) return;
    const double share = static_cast<double>(tally.cost) / static_cast<double>(wall);
    const size_t n_windows = ctx.steps_or_span().size();
    Finding f;
    f.category = Category::kFusionCandidate;
    f.confidence_terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
    f.confidence_terms.support = SupportFromCount(tally.matches);
    f.confidence_terms.consistency = static_cast<double>(tally.steps.size()) / static_cast<double>(n_windows);
    f.confidence_terms.specificity = specificity;
    f.confidence = ComputeConfidence(f.confidence_terms);
    if (f.confidence <= 0) return;
    const double k = static_cast<double>(tally.ops) / static_cast<double>(tally.matches);
    f.title = fmt::format("{}: {} times, {} ({} of {}); use {}", what, tally.matches, rules::FormatNs(tally.cost),
                          rules::Percent(share), ctx.steps().empty() ? "the trace" : "step time", fused);
    f.summary = fmt::format(
        "The trace runs {} {} times ({:.1f} ops each on average), costing {}{}. Each op reads and writes the whole "
        "tensor; the fused operator {} does it in one pass and one launch.",
        what, tally.matches, k, rules::FormatNs(tally.cost),
        ctx.device_intervals().empty() ? " of host time" : " of device time", fused);
    f.metrics = {{"pattern:" + std::string(id), static_cast<double>(tally.matches), "count"},
                 {"ops_per_match", k, ""},
                 {"pattern_ns", static_cast<double>(tally.cost), "ns"},
                 {"pattern_fraction", share, "ratio"}};
    std::sort(tally.examples.begin(), tally.examples.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    for (size_t i = 0; i < tally.examples.size() && i < 5; ++i)
      f.events.push_back(ctx.EventRef(tally.examples[i].first,
                                      fmt::format("first op of a match costing {}", rules::FormatNs(tally.examples[i].second))));
    f.saving_ns = static_cast<int64_t>(static_cast<double>(tally.cost) * (1.0 - 1.0 / std::max(1.0, k)));
    f.saving_method = fmt::format("cost x (1 - 1/{:.1f}): the fused op makes one pass over the data instead of {:.1f} "
                                  "(memory-bound elementwise ops), an estimate",
                                  k, k);
    rules::SetCost(ctx, tally.cost, f);
    f.suggestions.push_back({fmt::format("Replace the decomposed ops with {}.", fused), "code", std::string(fused)});
    if (id == "conv_bn_act") {
      f.suggestions.push_back({"Fold batch norm into the convolution for inference.", "code",
                               "model.eval()\nmodel = torch.ao.quantization.fuse_modules(model, [[\"conv\", \"bn\", "
                               "\"relu\"]])"});
    } else {
      const bool npu = rules::FrameworkOf(ctx) == rules::Framework::kTorchNpu;
      f.suggestions.push_back({"Or let the compiler fuse the sequence.", "code",
                               npu ? "import torchair\nmodel = torch.compile(model, backend=torchair.get_npu_backend())"
                                   : "model = torch.compile(model)  # torch < 2: torch.jit.script + freeze"});
    }
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeFusionCandidateRule() { return std::make_unique<FusionCandidateRule>(); }

}  // namespace cprof
