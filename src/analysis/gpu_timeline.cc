// The device-time breakdown (TraceLens gpu_timeline), in integer ns.
#include "analysis/gpu_timeline.h"

#include <algorithm>

#include "analysis/device_work.h"

namespace cprof {
namespace {

GpuTimeline Derive(const IntervalSet& c, const IntervalSet& m, const IntervalSet& p, const IntervalSet& u) {
  GpuTimeline t;
  t.computation_ns = c.Length();
  t.exposed_comm_ns = m.Minus(c).Length();
  t.exposed_memcpy_ns = p.Minus(c).Minus(m).Length();
  t.busy_ns = u.Length();
  t.total_comm_ns = m.Length();
  t.total_memcpy_ns = p.Length();
  return t;
}

}  // namespace

DeviceIntervals CollectDeviceIntervals(const Trace& trace, const TimeWindow& window) {
  DeviceWorkClassifier classify(trace);
  std::vector<Interval> comp, comm, mem, all;
  DeviceIntervals out;
  for (uint32_t track = 0; track < trace.tracks.size(); ++track) {
    TrackKind kind = trace.tracks.kind[track];
    if (!DeviceWorkClassifier::IsDeviceWorkTrack(kind)) continue;
    auto [b, e] = trace.track_slices(TrackId{track});
    for (uint32_t r = b; r < e; ++r) {
      int64_t ts = trace.slices.ts_ns[r];
      if (!window.Contains(ts)) continue;
      DeviceWork w = classify(r);
      if (w == DeviceWork::kNone) continue;
      Interval iv{ts, trace.slice_end(r)};
      if (window.bounded()) iv.end = std::min(iv.end, window.end_ns);
      all.push_back(iv);
      (kind == TrackKind::kGpuStream ? out.has_gpu : out.has_npu) = true;
      switch (w) {
        case DeviceWork::kComputation:
          comp.push_back(iv);
          ++out.computation_events;
          break;
        case DeviceWork::kCommunication:
          comm.push_back(iv);
          ++out.comm_events;
          break;
        case DeviceWork::kMemcpy:
          mem.push_back(iv);
          ++out.memcpy_events;
          break;
        case DeviceWork::kNone: break;
      }
    }
  }
  out.computation = IntervalSet::Union(std::move(comp));
  out.comm = IntervalSet::Union(std::move(comm));
  out.memcpy = IntervalSet::Union(std::move(mem));
  out.all = IntervalSet::Union(std::move(all));
  return out;
}

std::optional<GpuTimeline> ComputeGpuTimeline(const DeviceIntervals& d) {
  if (d.empty()) return std::nullopt;
  GpuTimeline t = Derive(d.computation, d.comm, d.memcpy, d.all);
  t.start_ns = d.all.first_start();
  t.end_ns = d.all.last_end();
  t.total_ns = t.end_ns - t.start_ns;
  t.idle_ns = t.total_ns - t.busy_ns;
  t.computation_events = d.computation_events;
  t.comm_events = d.comm_events;
  t.memcpy_events = d.memcpy_events;
  t.has_gpu = d.has_gpu;
  t.has_npu = d.has_npu;
  return t;
}

std::optional<GpuTimeline> ComputeGpuTimeline(const Trace& trace, const TimeWindow& window) {
  return ComputeGpuTimeline(CollectDeviceIntervals(trace, window));
}

std::vector<StepGpuTimeline> ComputeGpuTimelinePerStep(const DeviceIntervals& d,
                                                       const std::vector<Step>& steps) {
  std::vector<StepGpuTimeline> out;
  if (d.empty()) return out;
  for (const Step& s : steps) {
    int64_t a = s.start_ns, b = s.end_ns();
    GpuTimeline t = Derive(d.computation.Clip(a, b), d.comm.Clip(a, b), d.memcpy.Clip(a, b), d.all.Clip(a, b));
    t.start_ns = a;
    t.end_ns = b;
    t.total_ns = b - a;
    t.idle_ns = t.total_ns - t.busy_ns;
    t.has_gpu = d.has_gpu;
    t.has_npu = d.has_npu;
    out.push_back({s.id, t});
  }
  return out;
}

}  // namespace cprof
