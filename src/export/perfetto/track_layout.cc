// Lane assignment and side tracks of the Perfetto export.
#include "export/perfetto/track_layout.h"

#include <limits>

namespace cprof {

int64_t TrackLayout::NestingEnd(const Trace& trace, uint32_t row) {
  const int64_t dur = trace.slices.dur_ns[row];
  if (dur < 0) return std::numeric_limits<int64_t>::max();
  int64_t end;
  if (__builtin_add_overflow(trace.slices.ts_ns[row], dur, &end)) return std::numeric_limits<int64_t>::max();
  return end;
}

TrackLayout::TrackLayout(const Trace& trace) : trace_(trace) {
  const uint32_t tracks = static_cast<uint32_t>(trace.tracks.size());
  lane_count_.assign(tracks, 1);
  first_side_lane_.assign(tracks, UINT32_MAX);
  counter_uuid_.assign(tracks, 0);
  side_tracks_.reserve(16);

  // First-fit lanes: each lane is a stack of open slice ends; a slice goes on the first lane
  // whose innermost open slice contains it (or that is empty).
  std::vector<std::vector<int64_t>> lanes;
  for (uint32_t t = 0; t < tracks; ++t) {
    auto [b, e] = trace.track_slices(TrackId{t});
    if (b == e) continue;
    lanes.assign(1, {});
    for (uint32_t i = b; i < e; ++i) {
      const int64_t ts = trace.slices.ts_ns[i];
      const int64_t end = NestingEnd(trace, i);
      uint32_t chosen = UINT32_MAX;
      for (uint32_t l = 0; l < lanes.size(); ++l) {
        auto& stack = lanes[l];
        while (!stack.empty() && stack.back() <= ts) stack.pop_back();
        if (chosen == UINT32_MAX && (stack.empty() || end <= stack.back())) chosen = l;
      }
      if (chosen == UINT32_MAX) {
        chosen = static_cast<uint32_t>(lanes.size());
        lanes.emplace_back();
      }
      lanes[chosen].push_back(end);
      if (chosen != 0) {
        if (slice_lane_.empty()) slice_lane_.assign(trace.slices.size(), 0);
        slice_lane_[i] = chosen;
      }
    }
    lane_count_[t] = static_cast<uint32_t>(lanes.size());
  }

  // Which tracks carry counter values.
  std::vector<bool> has_counters(tracks, false);
  for (TrackId t : trace.counters.track_id) {
    if (Index(t) < tracks) has_counters[Index(t)] = true;
  }

  // Side tracks, in track order, so uuids are stable for a given trace.
  uint64_t next_uuid = uint64_t{tracks} + 1;
  auto add = [&](uint32_t track, uint32_t lane, bool is_counter) {
    side_tracks_.push_back({.uuid = next_uuid++, .track = track, .lane = lane, .is_counter = is_counter});
    return static_cast<uint32_t>(side_tracks_.size() - 1);
  };
  for (uint32_t t = 0; t < tracks; ++t) {
    const bool counter_kind = trace.tracks.kind[t] == TrackKind::kCounter;
    auto [b, e] = trace.track_slices(TrackId{t});
    if (counter_kind) {
      // Lanes 0..n-1 all become side tracks; the main uuid stays a counter track.
      if (b != e) {
        first_side_lane_[t] = add(t, 0, false);
        for (uint32_t l = 1; l < lane_count_[t]; ++l) add(t, l, false);
      }
      if (has_counters[t]) counter_uuid_[t] = MainUuid(t);
    } else {
      if (lane_count_[t] > 1) {
        first_side_lane_[t] = add(t, 1, false);
        for (uint32_t l = 2; l < lane_count_[t]; ++l) add(t, l, false);
      }
      if (has_counters[t]) counter_uuid_[t] = side_tracks_[add(t, 0, true)].uuid;
    }
  }
}

uint64_t TrackLayout::SliceUuid(uint32_t row) const {
  const uint32_t t = Index(trace_.slices.track_id[row]);
  const uint32_t lane = SliceLane(row);
  if (trace_.tracks.kind[t] == TrackKind::kCounter) return side_tracks_[first_side_lane_[t] + lane].uuid;
  if (lane == 0) return MainUuid(t);
  return side_tracks_[first_side_lane_[t] + lane - 1].uuid;
}

uint64_t TrackLayout::CounterUuid(uint32_t track) const { return counter_uuid_[track]; }

uint32_t TrackLayout::LaneCount(uint32_t track) const { return lane_count_[track]; }

}  // namespace cprof
