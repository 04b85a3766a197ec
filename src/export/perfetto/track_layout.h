// How a Trace's tracks become Perfetto tracks: one TrackDescriptor uuid per model track, plus
// side tracks where Perfetto needs them:
//   - overlap lanes: a Perfetto track is a stack, so slices that cross (start inside another
//     slice but end after it, counted as slice_improper_nesting) go to extra lanes, each
//     properly nested; a slice takes the first lane it nests in, in table order;
//   - counter side tracks: counter values on a non-counter track go to a counter track beside
//     it, and slices on a counter track go to plain lanes beside it.
//
//   TrackLayout layout(trace);
//   uint64_t uuid = layout.SliceUuid(row);   // the Perfetto track of a slice's events
//
// Requires a finalized Trace (slices sorted by track, then ts). Holds a reference to it.
#pragma once

#include <cstdint>
#include <vector>

#include "model/trace.h"

namespace cprof {

class TrackLayout {
 public:
  // A side track standing for model track `track`: a lane, or a counter track.
  struct SideTrack {
    uint64_t uuid = 0;
    uint32_t track = 0;
    uint32_t lane = 0;  // lane number; 0 for a counter side track
    bool is_counter = false;
  };

  explicit TrackLayout(const Trace& trace);

  // The end of a slice for nesting: never-ended slices (dur -1) stay open for ever; ends past
  // int64 saturate.
  static int64_t NestingEnd(const Trace& trace, uint32_t row);

  static uint64_t MainUuid(uint32_t track) { return uint64_t{track} + 1; }
  uint32_t SliceLane(uint32_t row) const { return slice_lane_.empty() ? 0 : slice_lane_[row]; }
  uint64_t SliceUuid(uint32_t row) const;
  uint64_t CounterUuid(uint32_t track) const;
  // Lanes of a track (1 unless its slices cross).
  uint32_t LaneCount(uint32_t track) const;
  const std::vector<SideTrack>& side_tracks() const { return side_tracks_; }

 private:
  const Trace& trace_;
  std::vector<uint32_t> slice_lane_;  // per slice row; empty while every track has one lane
  std::vector<uint32_t> lane_count_;  // per track
  // Per track: index into side_tracks_ of its lane 1 (lanes are consecutive), or of lane 0 for
  // counter tracks; UINT32_MAX if none.
  std::vector<uint32_t> first_side_lane_;
  std::vector<uint64_t> counter_uuid_;  // per track; 0 = the track has no counter values
  std::vector<SideTrack> side_tracks_;
};

}  // namespace cprof
