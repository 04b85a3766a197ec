// Trackers and Finalize() of the TraceBuilder.
#include "model/trace_builder.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include <fmt/format.h>

namespace cprof {

namespace {

// Times the model keeps: within +-2^62 ns (146 years around the Unix epoch), so a slice's end and
// the difference of any two times fit int64 and no span computed later can overflow. Importers'
// rows outside are dropped and counted as timestamp_out_of_range.
constexpr int64_t kMaxAbsTimeNs = int64_t{1} << 62;
bool TimeInRange(int64_t ts_ns) { return ts_ns >= -kMaxAbsTimeNs && ts_ns <= kMaxAbsTimeNs; }

}  // namespace

TraceBuilder::TraceBuilder(Trace* trace) : trace_(trace) {}

TrackId TraceBuilder::AddTrack(const TrackTable::Row& row) { return TrackId{trace_->tracks.Append(row)}; }

void TraceBuilder::AdoptTrack(TrackId track) {
  const TrackTable& t = trace_->tracks;
  const uint32_t i = Index(track);
  switch (t.kind[i]) {
    case TrackKind::kProcess: processes_.try_emplace(t.pid[i], track); break;
    case TrackKind::kThread: threads_.try_emplace({t.pid[i], t.tid[i]}, track); break;
    case TrackKind::kDevice: devices_.try_emplace(t.device[i], track); break;
    case TrackKind::kGpuStream:
    case TrackKind::kNpuStream:
      streams_.try_emplace({static_cast<int>(t.kind[i]), t.device[i], t.stream[i]}, track);
      break;
    default:
      children_.try_emplace({Index(t.parent_id[i]), static_cast<int>(t.kind[i]), Index(t.name_id[i])}, track);
      break;
  }
}

TrackId TraceBuilder::ProcessTrack(int64_t pid) {
  auto [it, inserted] = processes_.try_emplace(pid, kNoTrack);
  if (inserted) it->second = AddTrack({.kind = TrackKind::kProcess, .pid = pid});
  return it->second;
}

TrackId TraceBuilder::ThreadTrack(int64_t pid, int64_t tid) {
  auto [it, inserted] = threads_.try_emplace({pid, tid}, kNoTrack);
  if (inserted) {
    TrackId parent = ProcessTrack(pid);
    it->second = AddTrack({.parent_id = parent, .kind = TrackKind::kThread, .pid = pid, .tid = tid});
  }
  return it->second;
}

TrackId TraceBuilder::DeviceTrack(int64_t device) {
  auto [it, inserted] = devices_.try_emplace(device, kNoTrack);
  if (inserted) it->second = AddTrack({.kind = TrackKind::kDevice, .device = device});
  return it->second;
}

TrackId TraceBuilder::StreamTrack(TrackKind kind, int64_t device, int64_t stream) {
  auto [it, inserted] = streams_.try_emplace({static_cast<int>(kind), device, stream}, kNoTrack);
  if (inserted) {
    TrackId parent = DeviceTrack(device);
    it->second = AddTrack({.parent_id = parent, .kind = kind, .device = device, .stream = stream});
  }
  return it->second;
}

TrackId TraceBuilder::ChildTrack(TrackId parent, TrackKind kind, StringId name) {
  auto [it, inserted] = children_.try_emplace({Index(parent), static_cast<int>(kind), Index(name)}, kNoTrack);
  if (inserted) {
    TrackTable::Row row{.parent_id = parent, .kind = kind, .name_id = name};
    if (parent != kNoTrack) {
      const TrackTable& t = trace_->tracks;
      row.pid = t.pid[Index(parent)];
      row.tid = t.tid[Index(parent)];
      row.device = t.device[Index(parent)];
      row.rank = t.rank[Index(parent)];
    }
    it->second = AddTrack(row);
  }
  return it->second;
}

SliceId TraceBuilder::AddSlice(const SliceTable::Row& row) {
  if (row.dur_ns < -1) {
    stats().Add(ImportStat::negative_duration);
    return kNoSlice;
  }
  if (!TimeInRange(row.ts_ns) || row.dur_ns > kMaxAbsTimeNs || !TimeInRange(row.ts_ns + std::max<int64_t>(0, row.dur_ns))) {
    stats().Add(ImportStat::timestamp_out_of_range);
    return kNoSlice;
  }
  return SliceId{trace_->slices.Append(row)};
}

void TraceBuilder::BeginSlice(const SliceTable::Row& row) {
  if (!TimeInRange(row.ts_ns)) {
    stats().Add(ImportStat::timestamp_out_of_range);  // its E then finds nothing open: unmatched
    return;
  }
  SliceTable::Row open = row;
  open.dur_ns = -1;
  uint32_t id = trace_->slices.Append(open);
  open_begins_[Index(row.track_id)].push_back(id);
}

SliceId TraceBuilder::EndSlice(TrackId track, int64_t ts_ns) {
  auto it = open_begins_.find(Index(track));
  if (it == open_begins_.end() || it->second.empty()) {
    stats().Add(ImportStat::unmatched_end);
    return kNoSlice;
  }
  if (!TimeInRange(ts_ns)) {
    stats().Add(ImportStat::timestamp_out_of_range);  // the slice stays open: closed at the end
    return kNoSlice;
  }
  uint32_t id = it->second.back();
  it->second.pop_back();
  int64_t dur = ts_ns - trace_->slices.ts_ns[id];
  if (dur < 0) {
    stats().Add(ImportStat::negative_duration);
    dur = 0;
  }
  trace_->slices.dur_ns[id] = dur;
  return SliceId{id};
}

void TraceBuilder::AddFlow(SliceId out, SliceId in, FlowKind kind, StringId name) {
  if (out == kNoSlice || in == kNoSlice) {
    stats().Add(ImportStat::flow_unbound);
    return;
  }
  trace_->flows.Append({.out_slice_id = out, .in_slice_id = in, .kind = kind, .name_id = name});
}

void TraceBuilder::AddCounter(TrackId track, int64_t ts_ns, double value) {
  if (!TimeInRange(ts_ns)) {
    stats().Add(ImportStat::timestamp_out_of_range);
    return;
  }
  trace_->counters.Append({.track_id = track, .ts_ns = ts_ns, .value = value});
}

void TraceBuilder::AddMemoryEvent(const MemoryEventTable::Row& row) {
  if (!TimeInRange(row.ts_ns)) {
    stats().Add(ImportStat::timestamp_out_of_range);
    return;
  }
  trace_->memory_events.Append(row);
}

StackId TraceBuilder::AddStack(StackId parent, FrameId frame) {
  auto [it, inserted] = stack_ids_.try_emplace({Index(parent), Index(frame)}, 0);
  if (inserted) it->second = trace_->stacks.Append({.parent_id = parent, .frame_id = frame});
  return StackId{it->second};
}

void TraceBuilder::SetMetadata(std::string_view key, Value v) {
  trace_->metadata.Append({.key_id = Intern(key), .value = v});
}

Status TraceBuilder::Finalize() {
  // Slices still open: keep them, ending at the last timestamp seen, and say so.
  ComputeTimeSpan();
  for (auto& [track, rows] : open_begins_) {
    for (uint32_t id : rows) {
      trace_->slices.dur_ns[id] = std::max<int64_t>(0, trace_->end_ns - trace_->slices.ts_ns[id]);
      stats().Add(ImportStat::unclosed_begin);
    }
  }
  open_begins_.clear();
  SortSlicesAndRemap();
  ComputeDepthAndParent();
  BindFlowEndpoints();

  // Counters by (track, ts); memory events and samples by ts.
  {
    CounterTable& c = trace_->counters;
    std::vector<uint32_t> order(c.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
      if (c.track_id[a] != c.track_id[b]) return c.track_id[a] < c.track_id[b];
      return c.ts_ns[a] < c.ts_ns[b];
    });
    c.Permute(order);
  }
  auto sort_by_ts = [](auto& table) {
    std::vector<uint32_t> order(table.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return table.ts_ns[a] < table.ts_ns[b]; });
    table.Permute(order);
  };
  sort_by_ts(trace_->memory_events);
  sort_by_ts(trace_->samples);
  ComputeTimeSpan();
  if (final_stats_) trace_->stats = *final_stats_;
  return Status::Ok();
}

void TraceBuilder::SortSlicesAndRemap() {
  SliceTable& s = trace_->slices;
  const size_t n = s.size();
  const size_t tracks = trace_->tracks.size();
  // A stable counting sort by track gives each track's run in file order; a run is then sorted
  // by (ts, longer first) only if it is not already, which writers mostly ensure.
  std::vector<uint32_t>& begin = trace_->track_slice_begin;
  begin.assign(tracks + 1, 0);
  for (size_t i = 0; i < n; ++i) begin[Index(s.track_id[i]) + 1]++;
  for (size_t t = 0; t < tracks; ++t) begin[t + 1] += begin[t];
  std::vector<uint32_t> order(n);
  {
    std::vector<uint32_t> next(begin.begin(), begin.end() - 1);
    for (uint32_t i = 0; i < n; ++i) order[next[Index(s.track_id[i])]++] = i;
  }
  auto less = [&](uint32_t a, uint32_t b) {
    if (s.ts_ns[a] != s.ts_ns[b]) return s.ts_ns[a] < s.ts_ns[b];
    if (s.dur_ns[a] != s.dur_ns[b]) return s.dur_ns[a] > s.dur_ns[b];  // parents before children
    return a < b;                                                     // ties keep file order
  };
  for (size_t t = 0; t < tracks; ++t) {
    auto first = order.begin() + begin[t], last = order.begin() + begin[t + 1];
    if (!std::is_sorted(first, last, less)) std::sort(first, last, less);
  }
  bool identity = true;
  for (uint32_t i = 0; i < n && identity; ++i) identity = order[i] == i;
  if (identity) return;
  s.Permute(order);
  std::vector<uint32_t> new_of_old(n);
  for (uint32_t i = 0; i < n; ++i) new_of_old[order[i]] = i;
  FlowTable& f = trace_->flows;
  for (size_t i = 0; i < f.size(); ++i) {
    f.out_slice_id[i] = SliceId{new_of_old[Index(f.out_slice_id[i])]};
    f.in_slice_id[i] = SliceId{new_of_old[Index(f.in_slice_id[i])]};
  }
}

void TraceBuilder::ComputeDepthAndParent() {
  SliceTable& s = trace_->slices;
  std::vector<uint32_t> stack;
  int64_t improper = 0;
  for (size_t t = 0; t + 1 < trace_->track_slice_begin.size(); ++t) {
    stack.clear();
    for (uint32_t i = trace_->track_slice_begin[t]; i < trace_->track_slice_begin[t + 1]; ++i) {
      const int64_t ts = s.ts_ns[i];
      // A slice ending exactly where the next begins is its sibling, not its parent; a
      // zero-length slice contains nothing.
      while (!stack.empty() &&
             (trace_->slice_end(stack.back()) <= ts || s.dur_ns[stack.back()] == 0)) {
        stack.pop_back();
      }
      if (stack.empty()) {
        s.depth[i] = 0;
        s.parent_id[i] = kNoSlice;
      } else {
        uint32_t p = stack.back();
        s.depth[i] = s.depth[p] + 1;
        s.parent_id[i] = SliceId{p};
        if (trace_->slice_end(i) > trace_->slice_end(p)) ++improper;
      }
      stack.push_back(i);
    }
  }
  if (improper) stats().Add(ImportStat::slice_improper_nesting, improper);
}

SliceId TraceBuilder::FindBindingSlice(const FlowEndpoint& e) const {
  if (e.track == kNoTrack || Index(e.track) + 1 >= trace_->track_slice_begin.size()) return kNoSlice;
  auto [b, end] = trace_->track_slices(e.track);
  const auto& ts = trace_->slices.ts_ns;
  if (!e.bind_enclosing) {
    // The next slice to begin at or after ts.
    auto it = std::lower_bound(ts.begin() + b, ts.begin() + end, e.ts_ns);
    return it == ts.begin() + end ? kNoSlice : SliceId{static_cast<uint32_t>(it - ts.begin())};
  }
  // The deepest slice with start <= ts <= end: start from the last slice starting at or before
  // ts and climb to the first ancestor that still covers ts.
  auto it = std::upper_bound(ts.begin() + b, ts.begin() + end, e.ts_ns);
  if (it == ts.begin() + b) return kNoSlice;
  uint32_t row = static_cast<uint32_t>(it - ts.begin()) - 1;
  for (SliceId cur{row}; cur != kNoSlice; cur = trace_->slices.parent_id[Index(cur)]) {
    if (trace_->slice_end(Index(cur)) >= e.ts_ns) return cur;
  }
  return kNoSlice;
}

void TraceBuilder::BindFlowEndpoints() {
  auto& eps = flow_endpoints_;
  if (eps.empty()) return;
  const uint32_t n = static_cast<uint32_t>(eps.size());
  // Bind each endpoint to its slice first, visiting them by (track, ts): the binary searches then
  // walk each track's slices forward instead of jumping around a large trace.
  std::vector<SliceId> bound(n);
  {
    struct ByPlace {
      uint32_t track;
      uint32_t idx;
      int64_t ts;
    };
    std::vector<ByPlace> place(n);
    for (uint32_t i = 0; i < n; ++i) place[i] = {Index(eps[i].track), i, eps[i].ts_ns};
    std::sort(place.begin(), place.end(), [](const ByPlace& a, const ByPlace& b) {
      return a.track != b.track ? a.track < b.track : a.ts != b.ts ? a.ts < b.ts : a.idx < b.idx;
    });
    for (const ByPlace& p : place) bound[p.idx] = FindBindingSlice(eps[p.idx]);
  }
  // Then chain the endpoints of each flow id in time order (start before step before end at
  // equal ts; file order last).
  struct ByKey {
    uint64_t key;
    int64_t ts;
    uint32_t phase;
    uint32_t idx;
  };
  std::vector<ByKey> chain(n);
  for (uint32_t i = 0; i < n; ++i) chain[i] = {eps[i].key, eps[i].ts_ns, static_cast<uint32_t>(eps[i].phase), i};
  std::sort(chain.begin(), chain.end(), [](const ByKey& a, const ByKey& b) {
    if (a.key != b.key) return a.key < b.key;
    if (a.ts != b.ts) return a.ts < b.ts;
    return a.phase != b.phase ? a.phase < b.phase : a.idx < b.idx;
  });
  std::vector<uint32_t> order(n);
  for (uint32_t i = 0; i < n; ++i) order[i] = chain[i].idx;
  chain.clear();
  chain.shrink_to_fit();
  SliceId prev = kNoSlice;
  bool open = false;
  bool ended = false;  // an end with close_flow == false was seen; the flow fans out
  uint64_t open_key = 0;
  for (uint32_t idx : order) {
    const FlowEndpoint& e = eps[idx];
    if (open && e.key != open_key) {
      if (!ended) stats().Add(ImportStat::flow_unmatched);  // previous chain never ended
      open = false;
    }
    const SliceId slice = bound[idx];
    if (slice == kNoSlice) {
      stats().Add(ImportStat::flow_unbound);
      if (e.phase == FlowEndpoint::Phase::kEnd && e.close_flow) open = false;
      continue;
    }
    switch (e.phase) {
      case FlowEndpoint::Phase::kStart:
        if (open && !ended) stats().Add(ImportStat::flow_duplicate_id);
        open = true;
        ended = false;
        open_key = e.key;
        prev = slice;
        break;
      case FlowEndpoint::Phase::kStep:
      case FlowEndpoint::Phase::kEnd:
        if (!open) {
          stats().Add(ImportStat::flow_unmatched);
          break;
        }
        trace_->flows.Append({.out_slice_id = prev, .in_slice_id = slice, .kind = e.kind, .name_id = e.name_id});
        if (e.phase == FlowEndpoint::Phase::kStep) {
          prev = slice;
        } else if (e.close_flow) {
          open = false;
        } else {
          ended = true;
        }
        break;
    }
  }
  if (open && !ended) stats().Add(ImportStat::flow_unmatched);
  eps.clear();
  eps.shrink_to_fit();
}

void TraceBuilder::ComputeTimeSpan() {
  int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
  const SliceTable& s = trace_->slices;
  for (size_t i = 0; i < s.size(); ++i) {
    lo = std::min(lo, s.ts_ns[i]);
    hi = std::max(hi, s.ts_ns[i] + std::max<int64_t>(0, s.dur_ns[i]));
  }
  for (int64_t ts : trace_->counters.ts_ns) lo = std::min(lo, ts), hi = std::max(hi, ts);
  for (int64_t ts : trace_->memory_events.ts_ns) lo = std::min(lo, ts), hi = std::max(hi, ts);
  for (int64_t ts : trace_->samples.ts_ns) lo = std::min(lo, ts), hi = std::max(hi, ts);
  if (lo > hi) lo = hi = 0;
  trace_->start_ns = lo;
  trace_->end_ns = hi;
}

}  // namespace cprof
