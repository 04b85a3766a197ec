// Per-step breakdown of wall time (step_breakdown.h).
#include "analysis/step_breakdown.h"

#include <algorithm>

namespace cprof {
namespace {

// Host slices nested below the step's slice on its track, clipped to the step's window.
std::vector<Interval> HostOps(const Trace& trace, const Step& step, std::optional<TrackId> host_track, int64_t* first,
                              int64_t* last, int64_t* count) {
  std::vector<Interval> ops;
  const SliceTable& s = trace.slices;
  const bool own = step.slice_row < s.size();
  if (!own && !host_track) return ops;
  const TrackId track = own ? s.track_id[step.slice_row] : *host_track;
  auto [begin, end] = trace.track_slices(track);
  // Slices of a track are sorted by start: jump to the step's start.
  const auto* ts = s.ts_ns.data();
  uint32_t row = static_cast<uint32_t>(std::lower_bound(ts + begin, ts + end, step.start_ns) - ts);
  for (; row < end && ts[row] < step.end_ns(); ++row) {
    if (s.dur_ns[row] < 0) continue;
    if (own && (row == step.slice_row || s.depth[row] <= s.depth[step.slice_row])) continue;
    const int64_t a = std::max(ts[row], step.start_ns);
    const int64_t b = std::min(trace.slice_end(row), step.end_ns());
    if (b < a) continue;
    ops.push_back({a, b});
    *first = std::min(*first, a);
    *last = std::max(*last, b);
    ++*count;
  }
  return ops;
}

}  // namespace

std::vector<StepBreakdown> ComputeStepBreakdown(const Trace& trace, const std::vector<Step>& steps,
                                                const DeviceIntervals& device, std::optional<TrackId> host_track) {
  std::vector<StepBreakdown> out;
  out.reserve(steps.size());
  for (const Step& step : steps) {
    StepBreakdown b;
    b.step_id = step.id;
    b.start_ns = step.start_ns;
    b.dur_ns = std::max<int64_t>(0, step.dur_ns);
    const int64_t s0 = step.start_ns, s1 = step.start_ns + b.dur_ns;
    const IntervalSet window = IntervalSet::Union({{s0, s1}});
    IntervalSet busy;
    if (!device.empty()) {
      const IntervalSet c = device.computation.Clip(s0, s1);
      const IntervalSet m = device.comm.Clip(s0, s1).Minus(c);
      const IntervalSet p = device.memcpy.Clip(s0, s1).Minus(c).Minus(m);
      b.device_compute_ns = c.Length();
      b.exposed_comm_ns = m.Length();
      b.exposed_memcpy_ns = p.Length();
      busy = device.all.Clip(s0, s1);
    }
    const IntervalSet rest = window.Minus(busy);  // device not busy
    int64_t first = INT64_MAX, last = INT64_MIN;
    const IntervalSet host = IntervalSet::Union(HostOps(trace, step, host_track, &first, &last, &b.host_ops));
    const IntervalSet untraced = rest.Minus(host);
    b.host_framework_ns = rest.Length() - untraced.Length();
    if (b.host_ops == 0) {
      b.untraced_host_ns = untraced.Length();
    } else {
      b.untraced_host_ns = untraced.Clip(first, last).Length();
      b.idle_ns = untraced.Length() - b.untraced_host_ns;
    }
    out.push_back(b);
  }
  return out;
}

}  // namespace cprof
