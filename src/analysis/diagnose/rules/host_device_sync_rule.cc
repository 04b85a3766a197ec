// host_device_sync: the host blocks until the device finishes (torch.cuda.synchronize(),
// tensor.item(), a blocking copy to the host), so the device's queue runs dry and the device idles
// until the host has launched the next work.
//
// Sync calls are host slices named by the runtime/framework vocabulary (kSyncNames: CUDA, HIP and
// ACL synchronize calls, blocking cudaMemcpy/hipMemcpy, aten::item / aten::_local_scalar_dense),
// outermost only (item -> _local_scalar_dense -> cudaStreamSynchronize counts once). The idle a
// sync causes is the device idle gap that contains its end, when that gap began while the host was
// blocked (the device drained during the sync, then waited for new work), clipped to the step.
// Fires when the caused idle exceeds kThreshold of wall time.
// Confidence terms (confidence.h):
//  - magnitude   = MagnitudeOverThreshold(caused idle share of wall time, kThreshold);
//  - support     = SupportFromCount(syncs followed by device idle);
//  - consistency = share of steps with such a sync (1 without steps);
//  - specificity = 1: the blocking call is in the trace, and so is the idle after it.
// Saving: per sync min(idle after it, time the host was blocked in it): without the sync the host
// would have used the blocked time to queue the next work ahead of the device.
#include <algorithm>
#include <array>
#include <unordered_set>

#include <fmt/format.h>

#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/rule_support.h"

namespace cprof {
namespace {

constexpr double kThreshold = 0.05;
constexpr std::array<std::string_view, 16> kSyncNames = {
    "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaEventSynchronize", "cudaMemcpy",
    "hipDeviceSynchronize",  "hipStreamSynchronize",  "hipEventSynchronize",  "hipMemcpy",
    "aclrtSynchronizeDevice", "aclrtSynchronizeStream", "aclrtSynchronizeEvent", "aclrtMemcpy",
    "aten::item",            "aten::_local_scalar_dense", "cuStreamSynchronize", "cuCtxSynchronize"};

class HostDeviceSyncRule final : public Rule {
 public:
  std::string_view name() const override { return "host_device_sync"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    if (ctx.device_intervals().empty()) return;
    const Trace& t = ctx.trace();
    const SliceTable& s = t.slices;
    std::vector<int8_t> is_sync(t.strings.size(), -1);
    auto sync_name = [&](StringId id) {
      int8_t& v = is_sync[Index(id)];
      if (v < 0) v = std::find(kSyncNames.begin(), kSyncNames.end(), t.Str(id)) != kSyncNames.end() ? 1 : 0;
      return v == 1;
    };
    std::vector<uint32_t> syncs;
    for (uint32_t track = 0; track < t.tracks.size(); ++track) {
      if (t.tracks.kind[track] != TrackKind::kThread) continue;
      auto [b, e] = t.track_slices(TrackId{track});
      for (uint32_t r = b; r < e; ++r) {
        if (!ctx.InWindow(r) || s.dur_ns[r] < 0 || !sync_name(s.name_id[r])) continue;
        bool nested = false;
        for (SliceId p = s.parent_id[r]; p != kNoSlice && !nested; p = s.parent_id[Index(p)])
          nested = sync_name(s.name_id[Index(p)]);
        if (!nested) syncs.push_back(r);
      }
    }
    if (syncs.empty()) return;

    const std::vector<Step>& windows = ctx.steps_or_span();
    const std::vector<Interval>& busy = ctx.device_intervals().all.parts();
    struct Caused {
      uint32_t row;
      int64_t idle;
      int64_t saving;
    };
    std::vector<Caused> caused;
    std::unordered_set<int> steps_hit;
    int64_t idle_total = 0, saving = 0, blocked = 0;
    for (uint32_t r : syncs) {
      blocked += s.dur_ns[r];
      const int64_t end = t.slice_end(r);
      const int w = rules::StepIndexAt(windows, end);
      if (w < 0) continue;
      // The busy interval after the sync's end; the device is idle at `end` unless one covers it.
      auto next = std::upper_bound(busy.begin(), busy.end(), end, [](int64_t x, const Interval& iv) { return x < iv.start; });
      if (next != busy.begin() && std::prev(next)->end > end) continue;  // busy at the end: no drain
      const int64_t gap_start = next == busy.begin() ? windows[w].start_ns : std::max(std::prev(next)->end, windows[w].start_ns);
      const int64_t gap_end = next == busy.end() ? windows[w].end_ns() : std::min(next->start, windows[w].end_ns());
      // The device must have drained during the sync: idle that began before the host blocked
      // was not caused by this sync (the device was already waiting for something else).
      if (gap_end <= gap_start || gap_start < s.ts_ns[r]) continue;
      const int64_t idle = gap_end - gap_start;
      const int64_t save = std::min(idle, s.dur_ns[r]);
      caused.push_back({r, idle, save});
      idle_total += idle;
      saving += save;
      steps_hit.insert(w);
    }
    int64_t wall = 0;
    for (const Step& w : windows) wall += w.dur_ns;
    if (caused.empty() || wall <= 0) return;
    const double share = static_cast<double>(idle_total) / static_cast<double>(wall);
    std::sort(caused.begin(), caused.end(), [](const Caused& a, const Caused& b) { return a.idle > b.idle; });

    Finding f;
    f.category = Category::kHostDeviceSync;
    f.confidence_terms.magnitude = MagnitudeOverThreshold(share, kThreshold);
    f.confidence_terms.support = SupportFromCount(static_cast<int64_t>(caused.size()));
    f.confidence_terms.consistency = static_cast<double>(steps_hit.size()) / static_cast<double>(windows.size());
    f.confidence_terms.specificity = 1.0;
    f.confidence = ComputeConfidence(f.confidence_terms);
    if (f.confidence <= 0) return;
    f.title = fmt::format("{} host-device syncs leave the device idle {} ({} of {})", caused.size(),
                          rules::FormatNs(idle_total), rules::Percent(share),
                          ctx.steps().empty() ? "the trace" : "step time");
    f.summary = fmt::format(
        "The host blocked on the device {} times ({} in total, e.g. {}); {} of them drained the device's queue, and "
        "the device then idled {} until the host launched more work. Keep values on the device, copy "
        "asynchronously, and synchronize only where a result is really needed on the host.",
        syncs.size(), rules::FormatNs(blocked), t.Str(s.name_id[caused.front().row]), caused.size(),
        rules::FormatNs(idle_total));
    f.metrics = {{"syncs", static_cast<double>(syncs.size()), "count"},
                 {"syncs_followed_by_idle", static_cast<double>(caused.size()), "count"},
                 {"host_blocked_ns", static_cast<double>(blocked), "ns"},
                 {"device_idle_after_sync_ns", static_cast<double>(idle_total), "ns"},
                 {"device_idle_after_sync_fraction", share, "ratio"}};
    for (size_t i = 0; i < caused.size() && i < 5; ++i)
      f.events.push_back(ctx.EventRef(caused[i].row, fmt::format("host blocked {}, device idle {} around its end",
                                                                 rules::FormatNs(s.dur_ns[caused[i].row]),
                                                                 rules::FormatNs(caused[i].idle))));
    f.saving_ns = saving;
    f.saving_method = "per sync, min(device idle around its end, host time blocked in it): without the sync the host "
                      "queues the next work during the time it waited";
    rules::SetCost(ctx, idle_total, f);
    const bool npu = rules::FrameworkOf(ctx) == rules::Framework::kTorchNpu;
    const std::string dev = npu ? "npu" : "cuda";
    f.suggestions.push_back({"Accumulate metrics on the device and read them once per epoch or log interval instead "
                             "of calling .item() every step.",
                             "code",
                             "running_loss += loss.detach()          # stays on the device\n"
                             "if step % log_every == 0:\n    print(running_loss.item() / log_every)"});
    f.suggestions.push_back({"Copy to and from the host asynchronously from pinned memory.", "code",
                             "x = x.pin_memory().to(device, non_blocking=True)"});
    f.suggestions.push_back({fmt::format("Remove torch.{}.synchronize() calls outside timing code, and make sure "
                                         "launches are not forced to block.",
                                         dev),
                             "env", npu ? "ASCEND_LAUNCH_BLOCKING=0" : "CUDA_LAUNCH_BLOCKING=0"});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeHostDeviceSyncRule() { return std::make_unique<HostDeviceSyncRule>(); }

}  // namespace cprof
