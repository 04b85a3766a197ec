// layout_conversion: time spent converting tensors between memory layouts instead of computing:
// NCHW<->NHWC conversion kernels (cuDNN's nchwToNhwc/nhwcToNchw, Ascend's TransData), explicit
// format casts (npu_format_cast, to_mkldnn/to_dense reorders on CPU), and .contiguous() calls
// that copy (a permute/transpose made the tensor non-contiguous; a contiguous() that does not
// copy costs nothing and is ignored).
// GPU and CPU traces; Ascend traces are npu_layout_conversion_rule.cc's, from torch_npu's own tables.
//
// Cost: device traces: the device time of conversion kernels, plus the kernels launched from
// inside copying contiguous() calls (matched by correlation id); host-only traces: the host time of
// the (outermost) conversion operators. Fires when the cost exceeds kThreshold of wall time.
// Confidence terms (confidence.h):
//  - magnitude   = MagnitudeOverThreshold(cost share of wall time, kThreshold);
//  - support     = SupportFromCount(conversions);
//  - consistency = share of steps with a conversion (1 without steps);
//  - specificity = 1 when named conversion kernels/casts make most of the cost, 0.8 when it is
//    mostly contiguous() copies (a copy is a layout materialization, but may be one the op needs).
// Saving: kRemovable of the cost, assuming one layout end to end removes the conversions inside
// the model while those at its input and output stay (a stated assumption, not a measurement).
#include <algorithm>
#include <array>
#include <unordered_map>
#include <unordered_set>

#include <fmt/format.h>

#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/rule_support.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.03;
constexpr double kRemovable = 0.8;
// Substrings (any case) of kernel names that are layout conversions.
constexpr std::array<std::string_view, 6> kKernelMarks = {"nchwtonhwc", "nhwctonchw", "nchw2nhwc",
                                                          "nhwc2nchw",  "transdata",  "transpose_nd"};
// Operator base names (rule_support OpBase) that convert layouts by themselves.
constexpr std::array<std::string_view, 5> kOpNames = {"npu_format_cast", "to_mkldnn", "to_dense", "_to_dense",
                                                      "npu_format_cast_"};

bool IsConversionKernel(std::string_view name) {
  for (std::string_view m : kKernelMarks)
    if (rules::ContainsNoCase(name, m)) return true;
  return false;
}

class LayoutConversionRule final : public Rule {
 public:
  std::string_view name() const override { return "layout_conversion"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    if (ctx.device_kind() == DeviceKind::kNpu) return;  // npu_layout_conversion_rule.cc reads torch_npu's own tables
    const Trace& t = ctx.trace();
    const SliceTable& s = t.slices;
    const bool device = !ctx.device_intervals().empty();
    const std::vector<Step>& windows = ctx.steps_or_span();

    // Host side: format casts, and contiguous() calls that have children (they copied).
    std::vector<uint32_t> casts, copies;
    int64_t permute_pairs = 0;
    std::vector<uint32_t> prev_on_track;  // the previous host op at the same depth, for pairs
    for (uint32_t r : ctx.host_op_rows()) {
      const std::string base = rules::OpBase(t.Str(s.name_id[r]));
      if (std::find(kOpNames.begin(), kOpNames.end(), base) != kOpNames.end()) {
        casts.push_back(r);
      } else if (base == "contiguous" && r + 1 < s.size() && s.parent_id[r + 1] == SliceId{r}) {
        copies.push_back(r);
        // A permute/transpose sibling right before it on the track.
        for (uint32_t p = r; p-- > 0 && s.track_id[p] == s.track_id[r];) {
          if (s.depth[p] < s.depth[r]) break;
          if (s.depth[p] != s.depth[r]) continue;
          const std::string pb = rules::OpBase(t.Str(s.name_id[p]));
          if (pb == "permute" || pb == "transpose" || pb == "t" || pb == "transpose_") ++permute_pairs;
          break;
        }
      }
    }

    std::vector<uint32_t> kernels;  // conversion kernels and kernels of copying contiguous()
    int64_t cost = 0, named_cost = 0;
    std::unordered_set<int> steps_hit;
    std::vector<std::pair<uint32_t, int64_t>> cited;  // row, its cost
    if (device) {
      std::unordered_map<int64_t, std::vector<uint32_t>> by_corr;
      for (uint32_t r : ctx.device_rows()) {
        if (IsConversionKernel(t.Str(s.name_id[r]))) {
          kernels.push_back(r);
          cost += s.dur_ns[r];
          named_cost += s.dur_ns[r];
          cited.push_back({r, s.dur_ns[r]});
          if (int w = rules::StepIndexAt(windows, s.ts_ns[r]); w >= 0) steps_hit.insert(w);
        } else if (s.correlation_id[r] != kNoCorrelation) {
          by_corr[s.correlation_id[r]].push_back(r);
        }
      }
      for (uint32_t r : copies) {  // kernels launched by runtime calls nested in the copy
        int64_t c = 0;
        for (uint32_t d = r + 1; d < s.size() && s.track_id[d] == s.track_id[r] && s.ts_ns[d] < t.slice_end(r); ++d) {
          if (s.correlation_id[d] == kNoCorrelation) continue;
          auto it = by_corr.find(s.correlation_id[d]);
          if (it == by_corr.end()) continue;
          for (uint32_t k : it->second) c += s.dur_ns[k];
        }
        if (c <= 0) continue;
        cost += c;
        cited.push_back({r, c});
        if (int w = rules::StepIndexAt(windows, s.ts_ns[r]); w >= 0) steps_hit.insert(w);
      }
    } else {
      std::vector<uint32_t> all = casts;
      all.insert(all.end(), copies.begin(), copies.end());
      cost = rules::OutermostDuration(t, all);
      named_cost = rules::OutermostDuration(t, casts);
      for (uint32_t r : all) {
        cited.push_back({r, s.dur_ns[r]});
        if (int w = rules::StepIndexAt(windows, s.ts_ns[r]); w >= 0) steps_hit.insert(w);
      }
    }
    const int64_t conversions = static_cast<int64_t>(cited.size());
    int64_t wall = 0;
    for (const Step& w : windows) wall += w.dur_ns;
    if (conversions == 0 || cost <= 0 || wall <= 0) return;
    const double share = static_cast<double>(cost) / static_cast<double>(wall);
    std::sort(cited.begin(), cited.end(), [](const auto& a, const auto& b) { return a.second > b.second; });

    Finding f;
    f.category = Category::kLayoutConversion;
    f.confidence_terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
    f.confidence_terms.support = SupportFromCount(conversions);
    f.confidence_terms.consistency = static_cast<double>(steps_hit.size()) / static_cast<double>(windows.size());
    f.confidence_terms.specificity = 2 * named_cost >= cost ? 1.0 : 0.8;
    f.confidence = ComputeConfidence(f.confidence_terms);
    if (f.confidence <= 0) return;
    f.title = fmt::format("{} of {} converts memory layouts ({} conversions, {})", rules::Percent(share),
                          ctx.steps().empty() ? "the trace" : "step time", conversions, rules::FormatNs(cost));
    f.summary = fmt::format(
        "{} {} spent converting tensors between layouts rather than computing: {} conversion kernels or casts and "
        "{} copying .contiguous() calls ({} right after a permute/transpose). The producer writes one layout and "
        "the consumer wants another; keeping one layout end to end removes the conversions.",
        rules::FormatNs(cost), device ? "of device time is" : "of host time is", kernels.size() + casts.size(),
        copies.size(), permute_pairs);
    f.metrics = {{"conversion_ns", static_cast<double>(cost), "ns"},
                 {"conversion_fraction", share, "ratio"},
                 {"conversions", static_cast<double>(conversions), "count"},
                 {"conversion_kernels", static_cast<double>(kernels.size()), "count"},
                 {"contiguous_copies", static_cast<double>(copies.size()), "count"},
                 {"permute_contiguous_pairs", static_cast<double>(permute_pairs), "count"}};
    for (size_t i = 0; i < cited.size() && i < 5; ++i)
      f.events.push_back(ctx.EventRef(cited[i].first, fmt::format("{} of conversion", rules::FormatNs(cited[i].second))));
    f.saving_ns = static_cast<int64_t>(kRemovable * static_cast<double>(cost));
    f.saving_method = "80% of the conversion time: keeping one layout end to end removes the conversions inside the "
                      "model; those at its input and output stay (assumed 20%)";
    rules::SetCost(ctx, cost, f);
    switch (rules::FrameworkOf(ctx)) {
      case rules::Framework::kTorchNpu:
        f.suggestions.push_back({"Keep weights in the NPU's private format once, instead of TransData every step.",
                                 "code", "model = model.npu()\nfor m in model.modules():\n    if isinstance(m, torch.nn.Conv2d):\n"
                                         "        m.weight.data = torch_npu.npu_format_cast(m.weight.data, 3)  # NC1HWC0"});
        f.suggestions.push_back({"Let the framework pick private formats where it can.", "code",
                                 "torch.npu.config.allow_internal_format = True"});
        break;
      case rules::Framework::kPytorchCuda:
        f.suggestions.push_back({"Run convolutions in channels_last end to end (model and inputs), so cuDNN does not "
                                 "convert NCHW<->NHWC around each one.",
                                 "code", "model = model.to(memory_format=torch.channels_last)\n"
                                         "x = x.to(memory_format=torch.channels_last)"});
        break;
      case rules::Framework::kPytorchCpu:
        f.suggestions.push_back({"Use channels_last for convolution models on CPU (oneDNN's preferred layout), and "
                                 "avoid to_mkldnn/to_dense round trips.",
                                 "code", "model = model.to(memory_format=torch.channels_last)\n"
                                         "x = x.to(memory_format=torch.channels_last)"});
        break;
    }
    f.suggestions.push_back({"Avoid permute(...).contiguous() in the hot path: pick the layout the next op reads, or use "
                             "ops that accept strided input (e.g. reshape only where a view is impossible).",
                             "", ""});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeLayoutConversionRule() { return std::make_unique<LayoutConversionRule>(); }

}  // namespace cprof
