// Rule npu_layout_conversion: time the NPU spends in TransData (layout/format conversion between
// the framework's NCHW/ND and the cube unit's private formats NC1HWC0, FRACTAL_Z, FRACTAL_NZ).
//
// Tasks: NPU device tasks whose kernel type (kernel_details.csv "Type", else the task name)
// contains "TransData". Share = their device time / the device compute time (kernel tasks,
// npu::IsKernelTask). Fires when the share exceeds kThreshold (5%).
// Headroom, the method of msprof-analyze's vector-operator check, our implementation: group the
// tasks by (name, input shapes, output shapes); average the vector pipe utilisations
// (aiv_vec_ratio, aiv_mte2_ratio, aiv_mte3_ratio; msprof's vec/mte2/mte3_ratio on older chips).
// A group is pipe-bound when their sum >= 0.9 or one of them >= 0.7; otherwise its headroom
// (msprof-analyze's "optimization space") is max over the pipes of 0.7 - utilisation, i.e. 0.7 -
// the least-used pipe. That measure is generous; for the saving we use the conservative one,
// 0.7 - the busiest pipe (how much faster the kernel gets before its busiest pipe is well fed).
// Confidence terms:
//   magnitude   = 1 - 0.05 / share;
//   support     = n / (n + 3), n = TransData tasks;
//   consistency = share of steps that run a TransData (1 without steps);
//   specificity = 1: a TransData task is a layout conversion by definition.
// Saving: sum over unbound groups of group time x (0.7 - busiest pipe's utilisation); bound
// groups count 0. Conversions removed entirely (round trips of
// weights, which `allow_internal_format`/npu_format_cast avoid) would save more; not counted.
#include <algorithm>
#include <map>
#include <memory>
#include <tuple>

#include <fmt/format.h>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rule.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/npu_rule_support.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.05;
constexpr double kPipeTarget = 0.7;   // a pipe at 70% is well fed
constexpr double kBoundTotal = 0.9;   // the three pipes together at 90%: bound

bool IsPrivateFormat(std::string_view f) {
  for (std::string_view p : {"NC1HWC0", "FRACTAL", "NDC1HWC0", "C1HWNCoC0"})
    if (f.find(p) != std::string_view::npos) return true;
  return false;
}

struct Group {
  std::string name, in_shapes, out_shapes;
  int64_t dur = 0, count = 0, ratio_count = 0;
  double vec = 0, mte2 = 0, mte3 = 0;
  uint32_t longest = 0;
  bool bound = false;
  double headroom = 0;       // 0.7 - least-used pipe (msprof-analyze's optimization space)
  double busy_headroom = 0;  // 0.7 - busiest pipe
};

class NpuLayoutConversionRule final : public Rule {
 public:
  std::string_view name() const override { return "npu_layout_conversion"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    const Trace& t = ctx.trace();
    if (!npu::IsNpuTrace(t)) return;
    npu::ArgReader args(t);
    const std::vector<uint32_t> tasks = npu::DeviceTaskRows(ctx);
    const bool kernel_table = npu::HasKernelTable(args, tasks);

    int64_t compute_ns = 0, td_ns = 0, td_count = 0, back_count = 0, to_private = 0;
    std::map<std::tuple<std::string, std::string, std::string>, Group> groups;
    std::vector<uint32_t> td_rows;
    for (uint32_t r : tasks) {
      if (!npu::IsKernelTask(args, r, kernel_table)) continue;
      const int64_t dur = t.slices.dur_ns[r];
      compute_ns += dur;
      const std::string_view type = npu::KernelType(t, args, r);
      if (type.find("TransData") == std::string_view::npos) continue;
      td_ns += dur;
      ++td_count;
      td_rows.push_back(r);
      const std::string_view in_fmt = args.Text(r, "Input Formats"), out_fmt = args.Text(r, "Output Formats");
      if (IsPrivateFormat(in_fmt) && !IsPrivateFormat(out_fmt)) ++back_count;
      if (!IsPrivateFormat(in_fmt) && IsPrivateFormat(out_fmt)) ++to_private;
      auto key = std::make_tuple(std::string(t.Str(t.slices.name_id[r])), std::string(args.Text(r, "Input Shapes")),
                                 std::string(args.Text(r, "Output Shapes")));
      Group& g = groups[key];
      g.name = std::get<0>(key);
      g.in_shapes = std::get<1>(key);
      g.out_shapes = std::get<2>(key);
      g.dur += dur;
      if (g.count == 0 || dur > t.slices.dur_ns[g.longest]) g.longest = r;
      ++g.count;
      std::optional<double> vec = args.Number(r, "aiv_vec_ratio"), m2 = args.Number(r, "aiv_mte2_ratio"),
                            m3 = args.Number(r, "aiv_mte3_ratio");
      if (!vec || (*vec + m2.value_or(0) + m3.value_or(0)) == 0) {
        vec = args.Number(r, "vec_ratio");
        m2 = args.Number(r, "mte2_ratio");
        m3 = args.Number(r, "mte3_ratio");
      }
      if (vec || m2 || m3) {
        g.vec += vec.value_or(0);
        g.mte2 += m2.value_or(0);
        g.mte3 += m3.value_or(0);
        ++g.ratio_count;
      }
    }
    if (td_count == 0 || compute_ns <= 0) return;
    const double share = static_cast<double>(td_ns) / static_cast<double>(compute_ns);

    // Headroom per group.
    std::vector<Group*> tunable;
    int64_t bound_ns = 0, tunable_ns = 0, measured_ns = 0;
    double saving = 0;
    for (auto& [key, g] : groups) {
      if (g.ratio_count == 0) continue;
      measured_ns += g.dur;
      const double n = static_cast<double>(g.ratio_count);
      const double vec = g.vec / n, m2 = g.mte2 / n, m3 = g.mte3 / n;
      g.bound = vec + m2 + m3 >= kBoundTotal || vec >= kPipeTarget || m2 >= kPipeTarget || m3 >= kPipeTarget;
      if (g.bound) {
        bound_ns += g.dur;
        continue;
      }
      g.headroom = kPipeTarget - std::min({vec, m2, m3});
      g.busy_headroom = kPipeTarget - std::max({vec, m2, m3});
      tunable.push_back(&g);
      tunable_ns += g.dur;
      saving += static_cast<double>(g.dur) * g.busy_headroom;
    }
    std::sort(tunable.begin(), tunable.end(), [](const Group* a, const Group* b) { return a->headroom > b->headroom; });
    double top5 = 0;
    const size_t n_top = std::min<size_t>(5, tunable.size());
    for (size_t k = 0; k < n_top; ++k) top5 += tunable[k]->headroom;
    if (n_top > 0) top5 /= static_cast<double>(n_top);

    const double consistency = npu::StepConsistency(t, ctx.steps(), td_rows);

    Finding f;
    f.category = Category::kLayoutConversion;
    ConfidenceTerms terms;
    terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
    terms.support = SupportFromCount(td_count);
    terms.consistency = consistency;
    terms.specificity = 1.0;
    npu::SetConfidence(terms, f);
    if (f.confidence <= 0) return;

    const double max_headroom = tunable.empty() ? 0.0 : tunable.front()->headroom;
    f.title = fmt::format("{} TransData layout conversions take {} of NPU compute time ({}); up to {} headroom",
                          td_count, npu::Percent(share), npu::FormatNs(td_ns), npu::Percent(max_headroom));
    f.summary = fmt::format(
        "The NPU converted tensor layouts {} times ({} to a private format, {} back to NCHW/ND). {} "
        "group(s) of conversions use their vector pipes lightly: up to {} optimization headroom "
        "(0.7 minus the least-used pipe's utilisation; top five: {} on average); {} of the time is in "
        "pipe-bound conversions. Conversions that go back and forth every step (weights updated in NCHW, "
        "converted to FRACTAL_Z for each convolution) disappear when tensors stay in the private format.",
        td_count, to_private, back_count, tunable.size(), npu::Percent(max_headroom), npu::Percent(top5),
        npu::FormatNs(bound_ns));
    npu::SetCost(ctx, td_ns, f);
    f.saving_ns = std::min<int64_t>(td_ns, static_cast<int64_t>(saving));
    f.saving_method =
        "For each (op, shapes) group not bound by a pipe: its time x (0.7 minus its busiest vector pipe's "
        "mean utilisation, aiv_vec/mte2/mte3_ratio), the speed-up before that pipe is well fed; bound "
        "groups count 0.";
    f.metrics = {{"transdata_count", static_cast<double>(td_count), "count"},
                 {"transdata_ns", static_cast<double>(td_ns), "ns"},
                 {"transdata_compute_fraction", share, "ratio"},
                 {"device_compute_ns", static_cast<double>(compute_ns), "ns"},
                 {"headroom_max", max_headroom, "ratio"},
                 {"headroom_top5_mean", top5, "ratio"},
                 {"busiest_pipe_headroom_time_weighted", tunable_ns > 0 ? saving / static_cast<double>(tunable_ns) : 0.0,
                  "ratio"},
                 {"tunable_groups", static_cast<double>(tunable.size()), "count"},
                 {"bound_ns", static_cast<double>(bound_ns), "ns"},
                 {"pipe_metrics_ns", static_cast<double>(measured_ns), "ns"},
                 {"to_private_format", static_cast<double>(to_private), "count"},
                 {"back_to_framework_format", static_cast<double>(back_count), "count"}};
    for (size_t k = 0; k < n_top; ++k) {
      const Group& g = *tunable[k];
      f.events.push_back(ctx.EventRef(g.longest, fmt::format("{} -> {}: headroom {} ({} call(s), {})", g.in_shapes,
                                                             g.out_shapes, npu::Percent(g.headroom), g.count,
                                                             npu::FormatNs(g.dur))));
    }
    std::vector<uint32_t> longest = td_rows;
    std::sort(longest.begin(), longest.end(),
              [&](uint32_t a, uint32_t b) { return t.slices.dur_ns[a] > t.slices.dur_ns[b]; });
    for (size_t k = 0; k < longest.size() && k < 3; ++k)
      f.events.push_back(ctx.EventRef(longest[k], "longest TransData"));

    f.suggestions.push_back({"Keep tensors in the NPU's private formats between operators instead of converting "
                             "back to NCHW after each one (with online compilation, jit_compile=True; binary "
                             "kernels want it off).",
                             "code", "torch.npu.config.allow_internal_format = True"});
    f.suggestions.push_back({"Cast convolution weights to FRACTAL_Z once, so neither the forward pass nor the "
                             "optimizer converts them every step.",
                             "code",
                             "for m in model.modules():\n    if isinstance(m, torch.nn.Conv2d):\n"
                             "        m.weight.data = torch_npu.npu_format_cast(m.weight.data, 4)  # 4 = FRACTAL_Z"});
    f.suggestions.push_back({"Tune the remaining conversions' kernels with AOE (operator tuning), which targets "
                             "exactly the pipe headroom measured here.",
                             "command", "aoe --job_type=2 --model_path=<dumped graph> --output=./aoe_out"});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeNpuLayoutConversionRule() { return std::make_unique<NpuLayoutConversionRule>(); }

}  // namespace cprof
