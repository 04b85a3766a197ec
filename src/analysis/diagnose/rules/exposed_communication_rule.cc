// exposed_communication: collective communication (NCCL/RCCL kernels on GPU streams, HCCL tasks
// on NPU communication tracks) that runs while no computation does, so the step waits for it.
// GPU traces; Ascend traces are npu_exposed_communication_rule.cc's (torch_npu's Overlap Analysis).
//
// Measured from the device breakdown (gpu_timeline.h / step_breakdown.h): exposed = |M \ C|.
// Fires when exposed communication exceeds kThreshold of the analysed wall time (per step when
// there are steps, else of the device-active span).
// Confidence terms (confidence.h):
//  - magnitude   = MagnitudeOverThreshold(exposed share of wall time, kThreshold);
//  - support     = SupportFromCount(communication events that are at least half exposed);
//  - consistency = share of steps whose exposed share is above kThreshold (1 without steps);
//  - specificity = 1: the device itself shows communication with no computation beside it.
// Saving: per step min(exposed communication, computation time of the step): communication can at
// best be hidden behind the computation there is (bucketing, overlap with backward), never more.
#include <algorithm>

#include <fmt/format.h>

#include "analysis/device_work.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/rule_support.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.05;

class ExposedCommunicationRule final : public Rule {
 public:
  std::string_view name() const override { return "exposed_communication"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    if (ctx.device_kind() == DeviceKind::kNpu) return;  // npu_exposed_communication_rule.cc reads torch_npu's own tables
    const std::optional<GpuTimeline>& tl = ctx.device_timeline();
    if (!tl || tl->comm_events == 0) return;
    int64_t exposed = 0, wall = 0, saving = 0, compute = 0;
    int64_t steps_over = 0;
    const std::vector<StepBreakdown>& steps = ctx.step_breakdown();
    for (const StepBreakdown& s : steps) {
      exposed += s.exposed_comm_ns;
      wall += s.dur_ns;
      compute += s.device_compute_ns;
      saving += std::min(s.exposed_comm_ns, s.device_compute_ns);
      if (s.dur_ns > 0 && s.exposed_comm_ns > kThreshold * s.dur_ns) ++steps_over;
    }
    if (steps.empty()) {
      exposed = tl->exposed_comm_ns;
      wall = tl->total_ns;
      compute = tl->computation_ns;
      saving = std::min(exposed, compute);
    }
    if (wall <= 0 || exposed <= 0) return;
    const double share = static_cast<double>(exposed) / static_cast<double>(wall);

    // Communication slices by how much of each is exposed.
    const Trace& t = ctx.trace();
    const DeviceWorkClassifier& classify = ctx.device_work();
    const IntervalSet& c = ctx.device_intervals().computation;
    struct Exposed {
      uint32_t row;
      int64_t ns;
    };
    std::vector<Exposed> comm;
    int64_t mostly_exposed = 0;
    for (uint32_t r : ctx.device_rows()) {
      if (classify(r) != DeviceWork::kCommunication) continue;
      const int64_t a = t.slices.ts_ns[r], b = t.slice_end(r);
      const int64_t e = (b - a) - c.Clip(a, b).Length();
      if (e <= 0) continue;
      if (2 * e >= b - a) ++mostly_exposed;
      comm.push_back({r, e});
    }
    std::sort(comm.begin(), comm.end(), [](const Exposed& x, const Exposed& y) { return x.ns > y.ns; });

    Finding f;
    f.category = Category::kExposedCommunication;
    f.confidence_terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
    f.confidence_terms.support = SupportFromCount(std::max<int64_t>(mostly_exposed, steps_over));
    f.confidence_terms.consistency = steps.empty() ? 1.0 : static_cast<double>(steps_over) / steps.size();
    f.confidence_terms.specificity = 1.0;
    f.confidence = ComputeConfidence(f.confidence_terms);
    if (f.confidence <= 0) return;
    f.title = fmt::format("{} of {} is communication not overlapped with computation ({})", rules::Percent(share),
                          steps.empty() ? "the device-active time" : "step time", rules::FormatNs(exposed));
    f.summary = fmt::format(
        "Collective communication runs with no computation beside it for {} ({} of wall time); the device waits "
        "for the collective. {} communication events, {} of them at least half exposed. Overlap it with "
        "computation (gradient bucketing that starts all-reduce during backward, prefetching in FSDP) or make it "
        "smaller.",
        rules::FormatNs(exposed), rules::Percent(share), tl->comm_events, mostly_exposed);
    f.metrics = {{"exposed_comm_ns", static_cast<double>(exposed), "ns"},
                 {"exposed_comm_fraction", share, "ratio"},
                 {"total_comm_ns", static_cast<double>(tl->total_comm_ns), "ns"},
                 {"computation_ns", static_cast<double>(compute), "ns"},
                 {"comm_events", static_cast<double>(tl->comm_events), "count"}};
    for (size_t i = 0; i < comm.size() && i < 5; ++i)
      f.events.push_back(ctx.EventRef(comm[i].row, fmt::format("{} of it exposed", rules::FormatNs(comm[i].ns))));
    f.saving_ns = saving;
    f.saving_method =
        "per step, min(exposed communication, computation time): communication can at most be hidden behind the "
        "computation the step has";
    rules::SetCost(ctx, exposed, f);
    const rules::Framework fw = rules::FrameworkOf(ctx);
    if (fw == rules::Framework::kTorchNpu) {
      f.suggestions.push_back({"Let DDP start all-reduce during backward with smaller buckets, and keep gradients as "
                               "bucket views so no copy is needed.",
                               "code",
                               "model = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=25,\n"
                               "    gradient_as_bucket_view=True)"});
    } else {
      f.suggestions.push_back({"Let DDP start all-reduce during backward with smaller buckets, and keep gradients as "
                               "bucket views so no copy is needed.",
                               "code",
                               "model = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=25,\n"
                               "    gradient_as_bucket_view=True)"});
      f.suggestions.push_back({"With FSDP, prefetch the next all-gather during backward.", "code",
                               "FSDP(model, backward_prefetch=BackwardPrefetch.BACKWARD_PRE, forward_prefetch=True)"});
      f.suggestions.push_back({"Check the collective's bandwidth first (NVLink/IB in use, not sockets).", "env",
                               "NCCL_DEBUG=INFO"});
    }
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeExposedCommunicationRule() { return std::make_unique<ExposedCommunicationRule>(); }

}  // namespace cprof
