// Ascend Overlap Analysis per step (torch_npu's step_trace_time.csv rule).
#include "analysis/overlap_analysis.h"

#include <algorithm>
#include <limits>
#include <optional>

namespace cprof {
namespace {

enum class OverlapKind : uint8_t { kNone, kComputing, kCommunication, kNotOverlapped, kFree, kReceive };

OverlapKind KindOfAnalysisSlice(std::string_view name) {
  if (name == "Computing") return OverlapKind::kComputing;
  if (name == "Communication") return OverlapKind::kCommunication;
  if (name == "Communication(Not Overlapped)") return OverlapKind::kNotOverlapped;
  if (name == "Free") return OverlapKind::kFree;
  return OverlapKind::kNone;
}

struct OverlapSlice {
  int64_t ts;
  int64_t end;
  int64_t dur;
  OverlapKind kind;
};

std::vector<OverlapSlice> CollectOverlapSlices(const Trace& t) {
  std::vector<OverlapSlice> out;
  for (uint32_t track = 0; track < t.tracks.size(); ++track) {
    TrackKind tk = t.tracks.kind[track];
    if (tk != TrackKind::kAnalysis && tk != TrackKind::kCommunication) continue;
    auto [b, e] = t.track_slices(TrackId{track});
    for (uint32_t r = b; r < e; ++r) {
      if (t.slices.dur_ns[r] < 0) continue;
      std::string_view name = t.Str(t.slices.name_id[r]);
      OverlapKind k = OverlapKind::kNone;
      if (tk == TrackKind::kAnalysis) {
        k = KindOfAnalysisSlice(name);
      } else if (name.starts_with("hcom_receive")) {
        k = OverlapKind::kReceive;
      }
      if (k != OverlapKind::kNone) out.push_back({t.slices.ts_ns[r], t.slice_end(r), t.slices.dur_ns[r], k});
    }
  }
  return out;
}

struct Window {
  int64_t start;
  int64_t end;
};

// A host->device launch: the host slice's start and the device task it launched.
struct Launch {
  int64_t launch_ts;
  int64_t task_ts;
  int64_t task_end;
};

// Host->device flows (thread track -> device track), sorted by launch time.
std::vector<Launch> CollectLaunches(const Trace& t) {
  std::vector<Launch> out;
  for (size_t f = 0; f < t.flows.size(); ++f) {
    SliceId from = t.flows.out_slice_id[f], to = t.flows.in_slice_id[f];
    if (from == kNoSlice || to == kNoSlice) continue;
    uint32_t o = Index(from), i = Index(to);
    if (t.tracks.kind[Index(t.slices.track_id[o])] != TrackKind::kThread) continue;
    if (!IsDeviceTrack(t.tracks.kind[Index(t.slices.track_id[i])])) continue;
    out.push_back({t.slices.ts_ns[o], t.slices.ts_ns[i], t.slice_end(i)});
  }
  std::sort(out.begin(), out.end(), [](const Launch& a, const Launch& b) { return a.launch_ts < b.launch_ts; });
  return out;
}

// torch_npu's step range: device start of the first task launched inside the CPU step, and the
// later of the CPU end and the end of the tasks of the step's last launch.
Window DeviceStepWindow(const std::vector<Launch>& launches, const Step& step) {
  auto lo = std::lower_bound(launches.begin(), launches.end(), step.start_ns,
                             [](const Launch& l, int64_t ts) { return l.launch_ts < ts; });
  auto hi = std::lower_bound(lo, launches.end(), step.end_ns(),
                             [](const Launch& l, int64_t ts) { return l.launch_ts < ts; });
  if (lo == hi) return {step.start_ns, step.end_ns()};
  int64_t first_task = std::numeric_limits<int64_t>::max();
  for (auto it = lo; it != hi; ++it) first_task = std::min(first_task, it->task_ts);
  int64_t last_launch_ts = (hi - 1)->launch_ts;
  int64_t last_launch_end = std::numeric_limits<int64_t>::min();
  for (auto it = hi; it != lo && (it - 1)->launch_ts == last_launch_ts; --it) {
    last_launch_end = std::max(last_launch_end, (it - 1)->task_end);
  }
  return {first_task, std::max(last_launch_end, step.end_ns())};
}

int64_t FirstHostSliceStart(const Trace& t) {
  int64_t first = std::numeric_limits<int64_t>::max();
  for (uint32_t track = 0; track < t.tracks.size(); ++track) {
    if (t.tracks.kind[track] != TrackKind::kThread) continue;
    auto [b, e] = t.track_slices(TrackId{track});
    if (b < e) first = std::min(first, t.slices.ts_ns[b]);  // sorted by ts within a track
  }
  return first == std::numeric_limits<int64_t>::max() ? 0 : first;
}

StepTraceTime Summarize(const std::vector<OverlapSlice>& slices, Window w, int64_t step_id,
                        int64_t fwk_start) {
  StepTraceTime row;
  row.step_id = step_id;
  row.window_start_ns = w.start;
  row.window_end_ns = w.end;
  int64_t first = std::numeric_limits<int64_t>::max(), last = std::numeric_limits<int64_t>::min();
  int64_t first_work = std::numeric_limits<int64_t>::max();
  for (const OverlapSlice& s : slices) {
    if (s.ts < w.start || s.ts >= w.end) continue;
    ++row.slice_count;
    switch (s.kind) {
      case OverlapKind::kComputing: row.computing_ns += s.dur; break;
      case OverlapKind::kCommunication: row.communication_ns += s.dur; break;
      case OverlapKind::kNotOverlapped: row.comm_not_overlapped_ns += s.dur; break;
      case OverlapKind::kFree: row.free_ns += s.dur; break;
      case OverlapKind::kReceive: row.bubble_ns += s.dur; continue;
      case OverlapKind::kNone: continue;
    }
    first = std::min(first, s.ts);
    last = std::max(last, s.end);
    if (s.kind == OverlapKind::kComputing || s.kind == OverlapKind::kCommunication) {
      first_work = std::min(first_work, s.ts);
    }
  }
  row.overlapped_ns = row.communication_ns - row.comm_not_overlapped_ns;
  row.comm_not_overlapped_excl_receive_ns = row.comm_not_overlapped_ns - row.bubble_ns;
  if (last >= first) row.stage_ns = last - first - row.bubble_ns;
  if (first_work != std::numeric_limits<int64_t>::max()) row.preparing_ns = first_work - fwk_start;
  return row;
}

}  // namespace

bool HasOverlapAnalysis(const Trace& trace) {
  for (uint32_t track = 0; track < trace.tracks.size(); ++track) {
    if (trace.tracks.kind[track] != TrackKind::kAnalysis) continue;
    auto [b, e] = trace.track_slices(TrackId{track});
    for (uint32_t r = b; r < e; ++r) {
      if (KindOfAnalysisSlice(trace.Str(trace.slices.name_id[r])) != OverlapKind::kNone) return true;
    }
  }
  return false;
}

std::vector<StepTraceTime> ComputeStepTraceTime(const Trace& trace, const std::vector<Step>& steps) {
  std::vector<StepTraceTime> rows;
  std::vector<OverlapSlice> slices = CollectOverlapSlices(trace);
  bool any_analysis = std::any_of(slices.begin(), slices.end(),
                                  [](const OverlapSlice& s) { return s.kind != OverlapKind::kReceive; });
  if (!any_analysis) return rows;
  if (steps.empty()) {
    Window all{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
    rows.push_back(Summarize(slices, all, -1, FirstHostSliceStart(trace)));
    return rows;
  }
  std::vector<Launch> launches = CollectLaunches(trace);
  for (const Step& s : steps) {
    rows.push_back(Summarize(slices, DeviceStepWindow(launches, s), s.id, s.start_ns));
  }
  return rows;
}

}  // namespace cprof
