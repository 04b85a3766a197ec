// Rule npu_exposed_communication: on Ascend traces, collective communication that is not hidden
// behind computation, per step, from torch_npu's Overlap Analysis (overlap_analysis.h, the same
// numbers as step_trace_time.csv).
//
// Per step: exposed = "Communication(Not Overlapped)", step length = the step's Stage (its device
// span; the step's wall time when Stage is 0). Fires when exposed / step > kThreshold (10%) over
// the analysed steps together.
// Evidence: the worst steps, and the longest HCCL ops (names starting "hcom", or any op the
// importer gave communication.json's comm.* breakdown) with their wait/synchronization share.
// Confidence terms:
//   magnitude   = 1 - 0.10 / (exposed / step time), over all steps;
//   support     = n / (n + 3), n = communication ops in the analysed steps (each an observation);
//   consistency = share of steps whose own exposed share exceeds 10%;
//   specificity = 1: Overlap Analysis states directly that this time was communication only;
//                 0.9 without it, from our own breakdown of the device tracks (gpu_timeline.h).
// Saving (stated in saving_method): per step, the exposed time that could be hidden behind the
// step's computation not yet overlapping communication (Computing - Overlapped), plus the time
// the ops waited for their latest peer beyond the typical peer (npu::CommOpWaits: the longest
// Notify_Wait minus the median peer's; removed by balancing ranks, not by overlap), capped at
// the exposed time. When that late-peer wait exceeds a quarter of the exposed time the summary
// and the first suggestion point at the late rank rather than at overlap.
#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rule.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/npu_rule_support.h"
#include "analysis/gpu_timeline.h"
#include "analysis/overlap_analysis.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.10;

bool IsCommOp(const Trace& t, const npu::ArgReader& args, uint32_t row) {
  return npu::IsHcclOpName(t.Str(t.slices.name_id[row])) || args.Has(row, "comm.elapse_time_ns");
}

// Without torch_npu's Overlap Analysis (msprof exports, older torch_npu): the same four numbers
// from our own device-time breakdown (gpu_timeline.h, which classifies NPU streams and
// communication tracks), per step or over the whole trace.
std::vector<StepTraceTime> FromDeviceTimeline(const DiagnosisContext& ctx) {
  std::vector<StepTraceTime> rows;
  auto row = [](const GpuTimeline& tl, int64_t id, int64_t start, int64_t end) {
    StepTraceTime r;
    r.step_id = id;
    r.computing_ns = tl.computation_ns;
    r.comm_not_overlapped_ns = tl.exposed_comm_ns;
    r.communication_ns = tl.total_comm_ns;
    r.overlapped_ns = tl.total_comm_ns - tl.exposed_comm_ns;
    r.stage_ns = tl.total_ns;
    r.window_start_ns = start;
    r.window_end_ns = end;
    return r;
  };
  const std::vector<Step>& steps = ctx.steps();
  const std::vector<StepGpuTimeline>& per_step = ctx.device_timeline_per_step();
  if (!steps.empty() && per_step.size() == steps.size()) {
    for (size_t i = 0; i < steps.size(); ++i)
      rows.push_back(row(per_step[i].timeline, steps[i].id, steps[i].start_ns, steps[i].end_ns()));
  } else if (const std::optional<GpuTimeline>& tl = ctx.device_timeline(); tl && tl->total_comm_ns > 0) {
    rows.push_back(row(*tl, -1, ctx.span_start_ns(), ctx.span_end_ns()));
  }
  return rows;
}

class NpuExposedCommunicationRule final : public Rule {
 public:
  std::string_view name() const override { return "npu_exposed_communication"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    const Trace& t = ctx.trace();
    if (!npu::IsNpuTrace(t)) return;
    const bool overlap_analysis = HasOverlapAnalysis(t);
    const std::vector<StepTraceTime> rows =
        overlap_analysis ? ComputeStepTraceTime(t, ctx.steps()) : FromDeviceTimeline(ctx);
    if (rows.empty()) return;

    npu::ArgReader args(t);
    std::vector<uint32_t> ops;
    for (uint32_t r : npu::CommunicationRows(ctx))
      if (IsCommOp(t, args, r)) ops.push_back(r);

    const std::vector<npu::CommOpWait> waits = npu::CommOpWaits(ctx, args);
    std::map<int64_t, int64_t> late_by_peer;  // peer rank -> excess wait caused
    int64_t exposed = 0, step_total = 0, saving = 0, comm_total = 0, sync_total = 0, wait_total = 0;
    int64_t late_total = 0;
    int64_t steps_over = 0;
    std::vector<std::pair<double, size_t>> worst;  // (share, index into rows)
    for (size_t i = 0; i < rows.size(); ++i) {
      const StepTraceTime& s = rows[i];
      int64_t len = s.stage_ns > 0 ? s.stage_ns : s.window_end_ns - s.window_start_ns;
      if (len <= 0) continue;
      exposed += s.comm_not_overlapped_ns;
      comm_total += s.communication_ns;
      step_total += len;
      const double share = static_cast<double>(s.comm_not_overlapped_ns) / static_cast<double>(len);
      if (share > kThreshold) ++steps_over;
      worst.emplace_back(share, i);
      // Peers' lateness inside this step's ops: waiting that balancing removes.
      int64_t sync = 0;
      for (uint32_t r : ops) {
        if (t.slices.ts_ns[r] < s.window_start_ns || t.slices.ts_ns[r] >= s.window_end_ns) continue;
        sync += static_cast<int64_t>(args.Number(r, "comm.synchronization_time_ns").value_or(0));
        wait_total += static_cast<int64_t>(args.Number(r, "comm.wait_time_ns").value_or(0));
      }
      sync_total += sync;
      int64_t late = 0;
      for (const npu::CommOpWait& w : waits) {
        const int64_t ts = t.slices.ts_ns[w.op_row];
        if (ts < s.window_start_ns || ts >= s.window_end_ns || w.late_peer < 0) continue;
        late += w.excess_ns();
        late_by_peer[w.late_peer] += w.excess_ns();
      }
      late_total += late;
      const int64_t hideable = std::max<int64_t>(0, s.computing_ns - s.overlapped_ns);
      saving += std::min(s.comm_not_overlapped_ns, hideable + late);
    }
    if (step_total <= 0 || worst.empty()) return;
    const double share = static_cast<double>(exposed) / static_cast<double>(step_total);

    Finding f;
    f.category = Category::kExposedCommunication;
    ConfidenceTerms terms;
    terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
    terms.support = SupportFromCount(static_cast<int64_t>(ops.empty() ? worst.size() : ops.size()));
    terms.consistency = static_cast<double>(steps_over) / static_cast<double>(worst.size());
    terms.specificity = overlap_analysis ? 1.0 : 0.9;
    npu::SetConfidence(terms, f);
    if (f.confidence <= 0) return;

    const int64_t mean_step = step_total / static_cast<int64_t>(worst.size());
    int64_t worst_peer = -1, worst_peer_ns = 0;
    for (const auto& [peer, ns] : late_by_peer)
      if (ns > worst_peer_ns) {
        worst_peer = peer;
        worst_peer_ns = ns;
      }
    f.title = fmt::format("{} of the {} step is communication not overlapped with computation",
                          npu::Percent(share), npu::FormatNs(mean_step));
    f.summary = fmt::format(
        "Over {} step(s), HCCL communication ran {} with no computation beside it ({} of the device "
        "span of the steps). {} of the {} of communication overlapped computation. {}",
        worst.size(), npu::FormatNs(exposed), npu::Percent(share),
        npu::FormatNs(comm_total - exposed), npu::FormatNs(comm_total),
        late_total > exposed / 4
            ? fmt::format("The ops spent {} waiting for a late peer beyond the others (mostly rank {}): "
                          "another rank reaches the collectives late, so balance the ranks before tuning "
                          "overlap.",
                          npu::FormatNs(late_total), worst_peer)
            : "Most of it is transfer time that bucketing and overlap can hide.");
    npu::SetCost(ctx, exposed, f);
    f.saving_ns = std::min(saving, exposed);
    f.saving_method =
        "Per step: the exposed communication that fits behind the step's computation not yet "
        "overlapped (Computing - Overlapped), plus the ops' wait for their latest peer beyond the "
        "median peer (longest Notify_Wait; removed by balancing ranks), capped at the exposed time.";
    f.metrics = {{"exposed_comm_fraction", share, "ratio"},
                 {"exposed_comm_ns", static_cast<double>(exposed), "ns"},
                 {"communication_ns", static_cast<double>(comm_total), "ns"},
                 {"step_stage_mean_ns", static_cast<double>(mean_step), "ns"},
                 {"steps", static_cast<double>(worst.size()), "count"},
                 {"steps_over_threshold", static_cast<double>(steps_over), "count"},
                 {"comm_ops", static_cast<double>(ops.size()), "count"},
                 {"comm_synchronization_ns", static_cast<double>(sync_total), "ns"},
                 {"comm_wait_ns", static_cast<double>(wait_total), "ns"},
                 {"late_peer_wait_ns", static_cast<double>(late_total), "ns"},
                 {"late_peer_rank", static_cast<double>(worst_peer), ""},
                 {"from_overlap_analysis", overlap_analysis ? 1.0 : 0.0, ""}};

    std::sort(worst.begin(), worst.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    const std::vector<Step>& steps = ctx.steps();
    for (size_t k = 0; k < worst.size() && k < 3; ++k) {
      const StepTraceTime& s = rows[worst[k].second];
      for (const Step& st : steps) {
        if (st.id != s.step_id) continue;
        f.events.push_back(ctx.EventRef(st.slice_row, fmt::format("step {}: {} of the step exposed",
                                                                  s.step_id, npu::Percent(worst[k].first))));
        break;
      }
    }
    std::vector<uint32_t> longest = ops;
    std::sort(longest.begin(), longest.end(),
              [&](uint32_t a, uint32_t b) { return t.slices.dur_ns[a] > t.slices.dur_ns[b]; });
    for (size_t k = 0; k < longest.size() && k < 5; ++k) {
      const uint32_t r = longest[k];
      std::optional<double> wait = args.Number(r, "comm.wait_time_ratio");
      f.events.push_back(ctx.EventRef(
          r, wait ? fmt::format("longest HCCL op; {} of it waiting", npu::Percent(*wait)) : "longest HCCL op"));
    }

    for (const npu::CommOpWait& w : waits)
      if (w.late_peer == worst_peer && w.excess_ns() > exposed / 10 && f.events.size() < 10)
        f.events.push_back(ctx.EventRef(w.wait_row, fmt::format("waiting {} for rank {}", npu::FormatNs(w.max_wait_ns),
                                                                w.late_peer)));
    if (late_total > exposed / 4) {
      f.suggestions.push_back({"Most of the exposed time is one rank waiting for another: compare the ranks "
                               "(cluster analysis) and fix the late rank's extra work (input pipeline, "
                               "uneven batch, host-bound dispatch) first.",
                               "command", "cann-profiler cluster <profiling dir holding every rank's *_ascend_pt> --format md"});
    }
    f.suggestions.push_back({"Overlap gradient all-reduce with the backward pass: let DDP bucket gradients "
                             "(smaller buckets start communicating earlier).",
                             "code",
                             "model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[local_rank], "
                             "bucket_cap_mb=25, gradient_as_bucket_view=True)"});
    f.suggestions.push_back({"Let HCCL use a larger buffer and the fastest algorithm the topology allows (leave "
                             "HCCL_ALGO unset unless measured).",
                             "env", "export HCCL_BUFFSIZE=200"});
    f.suggestions.push_back({"Accumulate gradients over several micro-batches so communication runs once per "
                             "several computation steps.",
                             "code", "with model.no_sync():\n    loss.backward()  # all but the last micro-batch"});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeNpuExposedCommunicationRule() { return std::make_unique<NpuExposedCommunicationRule>(); }

}  // namespace cprof
