// memory_fragmentation: the caching allocator holds far more memory than the tensors use.
// Read from allocator events that carry the allocator's totals (total_allocated and
// total_reserved, as Kineto's [memory] events and torch_npu's memory records do), per device.
// Fragmentation at an event = 1 - allocated / reserved; the finding is about the moment of peak
// reserved memory, when it matters. Fires when more than 30% of the peak reservation is unused
// and that is at least 64 MiB.
//
// Confidence (confidence.h):
//  - magnitude   = 1 - 0.30 / fragmentation at peak reserved;
//  - support     = n / (n + 3), n = events with fragmentation above 30%;
//  - consistency = n / events carrying both totals;
//  - specificity = 0.9: a reservation above use is partly the cache working as intended.
// Cost and saving are memory, not time: cost_total_ns and saving_ns are 0; the bytes that could
// be returned (reserved - allocated at peak) are the `reclaimable_bytes` metric.
#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rule_util.h"

namespace cprof {
namespace {

using host_rules::Pct;

constexpr double kThreshold = 0.30;
constexpr int64_t kMinWasteBytes = 64LL << 20;

class MemoryFragmentationRule final : public Rule {
 public:
  std::string_view name() const override { return "memory_fragmentation"; }
  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override;
};

struct DeviceMemory {
  int64_t events = 0, fragmented = 0;
  int64_t peak_reserved = 0, allocated_at_peak = 0, peak_allocated = 0;
  int64_t peak_ts = 0;
};

void MemoryFragmentationRule::Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
  const MemoryEventTable& m = ctx.trace().memory_events;
  std::map<int64_t, DeviceMemory> by_device;
  for (uint32_t i = 0; i < m.size(); ++i) {
    if (m.total_reserved[i] <= 0 || m.total_allocated[i] < 0 || !ctx.window().Contains(m.ts_ns[i])) continue;
    DeviceMemory& d = by_device[m.device[i]];
    ++d.events;
    const double frag = 1.0 - static_cast<double>(m.total_allocated[i]) / static_cast<double>(m.total_reserved[i]);
    if (frag > kThreshold) ++d.fragmented;
    d.peak_allocated = std::max(d.peak_allocated, m.total_allocated[i]);
    if (m.total_reserved[i] > d.peak_reserved ||
        (m.total_reserved[i] == d.peak_reserved && m.total_allocated[i] > d.allocated_at_peak)) {
      d.peak_reserved = m.total_reserved[i];
      d.allocated_at_peak = m.total_allocated[i];
      d.peak_ts = m.ts_ns[i];
    }
  }
  for (const auto& [device, d] : by_device) {
    if (d.peak_reserved <= 0) continue;
    // At the peak reservation the tensors could have used up to the peak allocation seen.
    const int64_t used = std::max(d.allocated_at_peak, std::min(d.peak_allocated, d.peak_reserved));
    const int64_t waste = d.peak_reserved - used;
    const double frag = static_cast<double>(waste) / static_cast<double>(d.peak_reserved);
    if (waste < kMinWasteBytes) continue;
    ConfidenceTerms terms;
    terms.magnitude = MagnitudeOverThreshold(frag, kThreshold);
    if (terms.magnitude <= 0) continue;
    terms.support = SupportFromCount(d.fragmented);
    terms.consistency = static_cast<double>(d.fragmented) / static_cast<double>(d.events);
    terms.specificity = 0.9;
    const std::string where = device < 0 ? "host memory" : fmt::format("device {}", device);
    Finding f;
    f.category = Category::kMemoryFragmentation;
    f.device = std::string(DeviceKindId(ctx.device_kind()));
    f.confidence_terms = terms;
    f.confidence = ComputeConfidence(terms);
    f.saving_method = "Memory, not time: the reclaimable_bytes metric is the reservation above the peak use.";
    f.title = fmt::format("{} of the peak reservation on {} is unused ({:.0f} MiB of {:.0f} MiB)", Pct(frag), where,
                          static_cast<double>(waste) / (1 << 20), static_cast<double>(d.peak_reserved) / (1 << 20));
    f.summary = fmt::format(
        "The caching allocator reserved at most {:.0f} MiB on {} while tensors used at most {:.0f} MiB at that time; "
        "{} of {} allocator events show more than {} of the reservation unused. Free blocks split by differently "
        "sized allocations cannot serve larger requests, so the allocator reserves more.",
        static_cast<double>(d.peak_reserved) / (1 << 20), where, static_cast<double>(used) / (1 << 20), d.fragmented,
        d.events, Pct(kThreshold));
    f.metrics = {{"fragmentation_at_peak", frag, "ratio"},
                 {"peak_reserved_bytes", static_cast<double>(d.peak_reserved), "bytes"},
                 {"allocated_at_peak_bytes", static_cast<double>(d.allocated_at_peak), "bytes"},
                 {"peak_allocated_bytes", static_cast<double>(d.peak_allocated), "bytes"},
                 {"reclaimable_bytes", static_cast<double>(waste), "bytes"}};
    const bool npu = ctx.device_kind() == DeviceKind::kNpu;
    const std::string var = npu ? "PYTORCH_NPU_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF";
    f.suggestions = {
        {"Let the allocator grow segments instead of carving fixed blocks (recent PyTorch).", "env",
         var + "=expandable_segments:True"},
        {"Or stop large blocks from being split, and reclaim cached blocks earlier.", "env",
         var + "=max_split_size_mb:128,garbage_collection_threshold:0.8"},
        {"Keep tensor sizes stable between steps (pad variable-length batches to a few bucket sizes).", "", ""},
    };
    out.push_back(std::move(f));
  }
}

}  // namespace

std::unique_ptr<Rule> MakeMemoryFragmentationRule() { return std::make_unique<MemoryFragmentationRule>(); }

}  // namespace cprof
