// Rule comm_alignment: HCCL transfers whose sizes are not multiples of 512 bytes (Ascend traces).
//
// An HCCL op (a communication-track slice named "hcom*") runs as tasks (Memcpy, Reduce_Inline,
// ...) that the torch_npu importer keeps on the device's communication tracks with their fields
// as args: `size(Byte)`, `transport type`, `link type`. The SDMA engine moves 512-byte-aligned
// sizes at full speed; an unaligned size costs an extra, partial burst. Checked tasks: transport
// SDMA, a real link (not ON_CHIP, i.e. leaving the chip), size above 512 bytes; a task is
// unaligned when size % 512 != 0, an op when any of its tasks is. Tasks belong to the op on the
// same device whose span holds their start.
// Fires when any checked op is unaligned.
// Confidence terms:
//   magnitude   = 1 - 0.05 / (unaligned ops / checked ops): one op in 20 is the threshold;
//   support     = n / (n + 3), n = unaligned tasks;
//   consistency = share of steps (with checked ops) that hold an unaligned op (1 without steps);
//   specificity = 1: the sizes are read off the tasks.
// Saving: each unaligned task's time x (1 - its bandwidth / the median bandwidth of aligned
// tasks on the same link type), i.e. the time it would take at the aligned tasks' speed.
#include <algorithm>
#include <map>
#include <memory>

#include <fmt/format.h>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rule.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/npu_rule_support.h"

namespace cprof {
namespace {

constexpr int64_t kAlignBytes = 512;
constexpr double kOpShareThreshold = 0.05;

struct OpCheck {
  uint32_t row = 0;
  int64_t checked_tasks = 0, unaligned_tasks = 0;
  int64_t bytes = 0, task_ns = 0, unaligned_ns = 0;
  int64_t unaligned_example = 0;
  uint32_t worst_task = 0;
};

bool StartsWithHcom(std::string_view s) {
  return s.size() >= 4 && (s.substr(0, 4) == "hcom" || s.substr(0, 4) == "HCOM");
}

double Median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

class CommAlignmentRule final : public Rule {
 public:
  std::string_view name() const override { return "comm_alignment"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    const Trace& t = ctx.trace();
    if (!npu::IsNpuTrace(t)) return;
    npu::ArgReader args(t);
    std::vector<uint32_t> ops, tasks;
    for (uint32_t r : npu::CommunicationRows(ctx)) {
      if (args.Has(r, "size(Byte)")) tasks.push_back(r);
      else if (StartsWithHcom(t.Str(t.slices.name_id[r]))) ops.push_back(r);
    }
    if (ops.empty() || tasks.empty()) return;

    auto device_of = [&](uint32_t r) { return t.tracks.device[Index(t.slices.track_id[r])]; };
    std::vector<OpCheck> checks(ops.size());
    for (size_t i = 0; i < ops.size(); ++i) checks[i].row = ops[i];
    std::map<std::string, std::vector<double>> aligned_bw;  // link type -> bytes/ns of aligned tasks
    struct Unaligned { uint32_t row; double bw; std::string link; };
    std::vector<Unaligned> unaligned;
    for (uint32_t r : tasks) {
      if (args.Text(r, "transport type") != "SDMA") continue;
      std::string_view link = args.Text(r, "link type");
      if (link == "ON_CHIP") continue;
      const int64_t size = static_cast<int64_t>(args.Number(r, "size(Byte)").value_or(0));
      if (size <= kAlignBytes) continue;
      const int64_t ts = t.slices.ts_ns[r];
      // The op holding the task: ops are few and sorted, a linear scan from the right is enough.
      OpCheck* op = nullptr;
      for (size_t i = ops.size(); i-- > 0;) {
        const uint32_t o = ops[i];
        if (t.slices.ts_ns[o] <= ts && ts <= t.slice_end(o) && device_of(o) == device_of(r)) {
          op = &checks[i];
          break;
        }
      }
      if (op == nullptr) continue;
      const int64_t dur = std::max<int64_t>(1, t.slices.dur_ns[r]);
      ++op->checked_tasks;
      op->bytes += size;
      op->task_ns += dur;
      const double bw = static_cast<double>(size) / static_cast<double>(dur);
      if (size % kAlignBytes != 0) {
        ++op->unaligned_tasks;
        op->unaligned_ns += dur;
        if (op->unaligned_example == 0 || dur > t.slices.dur_ns[op->worst_task]) {
          op->unaligned_example = size;
          op->worst_task = r;
        }
        unaligned.push_back({r, bw, std::string(link)});
      } else {
        aligned_bw[std::string(link)].push_back(bw);
      }
    }

    int64_t checked_ops = 0, bad_ops = 0, unaligned_ns = 0, checked_ns = 0;
    for (const OpCheck& c : checks) {
      if (c.checked_tasks == 0) continue;
      ++checked_ops;
      checked_ns += c.task_ns;
      if (c.unaligned_tasks > 0) ++bad_ops;
      unaligned_ns += c.unaligned_ns;
    }
    if (bad_ops == 0) return;

    int64_t saving = 0;
    for (const Unaligned& u : unaligned) {
      auto it = aligned_bw.find(u.link);
      if (it == aligned_bw.end()) continue;
      const double ref = Median(it->second);
      if (ref > u.bw) saving += static_cast<int64_t>(static_cast<double>(t.slices.dur_ns[u.row]) * (1.0 - u.bw / ref));
    }

    // Consistency over steps that hold checked ops.
    const std::vector<Step>& steps = ctx.steps();
    double consistency = 1.0;
    if (!steps.empty()) {
      int64_t with_ops = 0, with_bad = 0;
      for (const Step& s : steps) {
        bool any = false, bad = false;
        for (const OpCheck& c : checks) {
          const int64_t ts = t.slices.ts_ns[c.row];
          if (c.checked_tasks == 0 || ts < s.start_ns || ts >= s.end_ns()) continue;
          any = true;
          bad = bad || c.unaligned_tasks > 0;
        }
        with_ops += any;
        with_bad += bad;
      }
      if (with_ops > 0) consistency = static_cast<double>(with_bad) / static_cast<double>(with_ops);
    }

    Finding f;
    f.category = Category::kCommAlignment;
    const double op_share = static_cast<double>(bad_ops) / static_cast<double>(checked_ops);
    ConfidenceTerms terms;
    terms.magnitude = MagnitudeOverThreshold(op_share, kOpShareThreshold);
    terms.support = SupportFromCount(static_cast<int64_t>(unaligned.size()));
    terms.consistency = consistency;
    terms.specificity = 1.0;
    npu::SetConfidence(terms, f);
    if (f.confidence <= 0) return;

    f.title = fmt::format("{} of {} HCCL ops move sizes not aligned to {} bytes", bad_ops, checked_ops, kAlignBytes);
    f.summary = fmt::format(
        "{} SDMA transfers of {} ops are not multiples of {} bytes ({} of the {} of checked transfer "
        "time). Unaligned transfers run a partial burst at the end and lower the link's bandwidth; "
        "tensor sizes that divide evenly by the rank count and 512 bytes avoid them.",
        unaligned.size(), bad_ops, kAlignBytes, npu::FormatNs(unaligned_ns), npu::FormatNs(checked_ns));
    npu::SetCost(ctx, unaligned_ns, f);
    f.saving_ns = std::min(saving, unaligned_ns);
    f.saving_method =
        "Each unaligned transfer's time minus the time it would take at the median bandwidth of the "
        "aligned transfers on the same link type.";
    f.metrics = {{"unaligned_ops", static_cast<double>(bad_ops), "count"},
                 {"checked_ops", static_cast<double>(checked_ops), "count"},
                 {"unaligned_tasks", static_cast<double>(unaligned.size()), "count"},
                 {"unaligned_task_ns", static_cast<double>(unaligned_ns), "ns"},
                 {"checked_task_ns", static_cast<double>(checked_ns), "ns"},
                 {"unaligned_time_fraction",
                  checked_ns > 0 ? static_cast<double>(unaligned_ns) / static_cast<double>(checked_ns) : 0.0, "ratio"},
                 {"alignment_bytes", static_cast<double>(kAlignBytes), "bytes"}};
    std::vector<const OpCheck*> bad;
    for (const OpCheck& c : checks)
      if (c.unaligned_tasks > 0) bad.push_back(&c);
    std::sort(bad.begin(), bad.end(), [](const OpCheck* a, const OpCheck* b) { return a->unaligned_ns > b->unaligned_ns; });
    for (size_t k = 0; k < bad.size() && k < 5; ++k) {
      const OpCheck& c = *bad[k];
      f.events.push_back(ctx.EventRef(
          c.row, fmt::format("{} of {} transfers unaligned ({} bytes in all, e.g. {} bytes = {} x 512 + {})",
                             c.unaligned_tasks, c.checked_tasks, c.bytes, c.unaligned_example,
                             c.unaligned_example / kAlignBytes, c.unaligned_example % kAlignBytes)));
      f.events.push_back(ctx.EventRef(c.worst_task, fmt::format("unaligned transfer of {} bytes", c.unaligned_example)));
    }
    f.suggestions.push_back(
        {"Pad the communicated tensors (gradient buckets, parameters) so that each rank's share is a multiple "
         "of 512 bytes: for fp32, a multiple of 128 x world_size elements.",
         "code",
         "align = 512 // t.element_size() * world_size\npad = (-t.numel()) % align\n"
         "flat = torch.nn.functional.pad(t.flatten(), (0, pad))\ndist.all_reduce(flat)\nt.copy_(flat[:t.numel()].view_as(t))"});
    f.suggestions.push_back({"With DDP, pick bucket_cap_mb so buckets split evenly across ranks, or flatten "
                             "parameters with a fused optimizer, which keeps them in one aligned buffer.",
                             "code", "model = DDP(model, bucket_cap_mb=32, gradient_as_bucket_view=True)"});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeCommAlignmentRule() { return std::make_unique<CommAlignmentRule>(); }

}  // namespace cprof
