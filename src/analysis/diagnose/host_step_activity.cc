// Untraced host time inside steps and what ran in it (host_step_activity.h).
#include "analysis/diagnose/host_step_activity.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <unordered_map>

namespace cprof {
namespace {

// Length of [a, b) inside `set`.
int64_t OverlapWith(const IntervalSet& set, int64_t a, int64_t b) {
  const std::vector<Interval>& p = set.parts();
  auto it = std::upper_bound(p.begin(), p.end(), a, [](int64_t x, const Interval& i) { return x < i.end; });
  int64_t sum = 0;
  for (; it != p.end() && it->start < b; ++it) sum += std::max<int64_t>(0, std::min(b, it->end) - std::max(a, it->start));
  return sum;
}

}  // namespace

TrackId PythonFrameTrack(const Trace& trace, TrackId thread) {
  const TrackTable& t = trace.tracks;
  for (uint32_t i = 0; i < t.size(); ++i) {
    if (t.parent_id[i] == thread && trace.HoldsSampledFrames(TrackId{i})) return TrackId{i};
  }
  return kNoTrack;
}

int64_t IterationEndNs(const Trace& trace, const std::vector<Step>& steps, size_t i) {
  const Step& s = steps[i];
  if (i + 1 >= steps.size()) return s.end_ns();
  const Step& next = steps[i + 1];
  if (next.start_ns <= s.end_ns()) return s.end_ns();
  if (trace.slices.track_id[next.slice_row] != trace.slices.track_id[s.slice_row]) return s.end_ns();
  return std::min(next.start_ns, s.end_ns() + 10 * std::max<int64_t>(s.dur_ns, 1));
}

std::vector<StepHostActivity> ComputeStepHostActivity(const Trace& trace, const std::vector<Step>& steps,
                                                      int64_t min_gap_ns) {
  std::vector<StepHostActivity> out;
  out.reserve(steps.size());
  const SliceTable& s = trace.slices;
  for (size_t i = 0; i < steps.size(); ++i) {
    const Step& step = steps[i];
    StepHostActivity a;
    a.step_index = i;
    a.thread = s.track_id[step.slice_row];
    a.end_ns = IterationEndNs(trace, steps, i);
    a.step_ns = a.end_ns - step.start_ns;
    auto [b, e] = trace.track_slices(a.thread);
    // Slices are sorted by start on the track; those starting before the step can only cover it
    // if they enclose it (skipped) or started in an earlier step (clipped in).
    const auto first = std::lower_bound(s.ts_ns.begin() + b, s.ts_ns.begin() + e, step.start_ns);
    std::vector<Interval> covered;
    for (uint32_t r = static_cast<uint32_t>(first - s.ts_ns.begin()); r < e && s.ts_ns[r] < a.end_ns; ++r) {
      if (r == step.slice_row || s.dur_ns[r] <= 0) continue;
      if (s.ts_ns[r] <= step.start_ns && trace.slice_end(r) >= step.end_ns()) continue;  // encloses the step
      covered.push_back({s.ts_ns[r], std::min(trace.slice_end(r), a.end_ns)});
    }
    IntervalSet cov = IntervalSet::Union(std::move(covered));
    a.covered_ns = cov.Length();
    IntervalSet uncovered = IntervalSet::Union({{step.start_ns, a.end_ns}}).Minus(cov);
    std::vector<Interval> long_gaps;
    for (const Interval& g : uncovered.parts()) {
      if (g.end - g.start < min_gap_ns) continue;
      long_gaps.push_back(g);
      a.longest_gap_ns = std::max(a.longest_gap_ns, g.end - g.start);
      if (g.start == step.start_ns) a.leading_gap_ns = g.end - g.start;
    }
    a.gaps = IntervalSet::Union(std::move(long_gaps));
    a.gap_ns = a.gaps.Length();
    out.push_back(std::move(a));
  }
  return out;
}

FramesInGaps FramesInIntervals(const Trace& trace, TrackId thread, const IntervalSet& intervals) {
  FramesInGaps out;
  if (intervals.empty()) return out;
  const SliceTable& s = trace.slices;
  std::map<std::string, FrameTime> by_name;
  const TrackId py = PythonFrameTrack(trace, thread);
  if (py != kNoTrack) {
    auto [b, e] = trace.track_slices(py);
    std::unordered_map<uint32_t, int64_t> child_overlap;  // row -> overlap of its children
    std::vector<std::pair<uint32_t, int64_t>> rows;       // overlapping rows, in order
    for (uint32_t r = b; r < e; ++r) {
      if (s.ts_ns[r] >= intervals.last_end() || trace.slice_end(r) <= intervals.first_start()) continue;
      int64_t ov = OverlapWith(intervals, s.ts_ns[r], trace.slice_end(r));
      if (ov <= 0) continue;
      rows.emplace_back(r, ov);
      if (s.parent_id[r] != kNoSlice) child_overlap[Index(s.parent_id[r])] += ov;
      if (s.depth[r] == 0) out.observed_ns += ov;
    }
    for (const auto& [r, ov] : rows) {
      FrameTime& f = by_name[std::string(trace.Str(s.name_id[r]))];
      f.inclusive_ns += ov;
      auto it = child_overlap.find(r);
      const int64_t self = ov - (it == child_overlap.end() ? 0 : it->second);
      if (self > 0) {
        f.self_ns += self;
        if (f.caller.empty() && s.parent_id[r] != kNoSlice) f.caller = std::string(trace.Str(s.name_id[Index(s.parent_id[r])]));
      }
    }
    out.from_python = true;
  } else {
    // CPU samples: each counts for the median interval between the thread's samples.
    std::vector<uint32_t> rows;
    for (uint32_t i = 0; i < trace.samples.size(); ++i)
      if (trace.samples.track_id[i] == thread) rows.push_back(i);
    if (rows.size() < 2) return out;
    std::sort(rows.begin(), rows.end(), [&](uint32_t x, uint32_t y) { return trace.samples.ts_ns[x] < trace.samples.ts_ns[y]; });
    std::vector<int64_t> deltas;
    for (size_t k = 1; k < rows.size(); ++k) deltas.push_back(trace.samples.ts_ns[rows[k]] - trace.samples.ts_ns[rows[k - 1]]);
    std::nth_element(deltas.begin(), deltas.begin() + deltas.size() / 2, deltas.end());
    const int64_t period = std::max<int64_t>(1, deltas[deltas.size() / 2]);
    for (uint32_t i : rows) {
      const int64_t ts = trace.samples.ts_ns[i];
      if (OverlapWith(intervals, ts, ts + 1) == 0) continue;
      // The innermost frame with a name.
      for (StackId st = trace.samples.stack_id[i]; st != kNoStack; st = trace.stacks.parent_id[Index(st)]) {
        FrameId fr = trace.stacks.frame_id[Index(st)];
        if (fr == kNoFrame) continue;
        std::string_view fn = trace.Str(trace.frames.function_id[Index(fr)]);
        if (fn.empty()) continue;
        FrameTime& f = by_name[std::string(fn)];
        f.self_ns += period;
        f.inclusive_ns += period;
        out.observed_ns += period;
        break;
      }
    }
    out.observed_ns = std::min(out.observed_ns, intervals.Length());
  }
  for (auto& [name, f] : by_name) {
    f.name = name;
    out.frames.push_back(std::move(f));
  }
  std::sort(out.frames.begin(), out.frames.end(), [](const FrameTime& x, const FrameTime& y) {
    if (x.self_ns != y.self_ns) return x.self_ns > y.self_ns;
    return x.name < y.name;
  });
  return out;
}

std::optional<int64_t> OnCpuNs(const Trace& trace, TrackId thread, const IntervalSet& intervals) {
  std::vector<int64_t> ts;
  for (uint32_t i = 0; i < trace.samples.size(); ++i)
    if (trace.samples.track_id[i] == thread) ts.push_back(trace.samples.ts_ns[i]);
  if (ts.size() < 20) return std::nullopt;
  std::sort(ts.begin(), ts.end());
  int64_t period = 0;
  const double v = std::strtod(trace.MetadataText("cpu_sampling_hz").c_str(), nullptr);
  if (v > 0) {
    period = static_cast<int64_t>(1e9 / v);
  } else {
    std::vector<int64_t> d;
    for (size_t k = 1; k < ts.size(); ++k) d.push_back(ts[k] - ts[k - 1]);
    std::nth_element(d.begin(), d.begin() + d.size() / 2, d.end());
    period = std::max<int64_t>(1, d[d.size() / 2]);
  }
  int64_t n = 0;
  for (int64_t t : ts) n += OverlapWith(intervals, t, t + 1);
  return std::min(intervals.Length(), n * period);
}

}  // namespace cprof
