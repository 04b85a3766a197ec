// Turns TrackDescriptors and TrackEvents into model rows through the TraceBuilder: slices from
// SLICE_BEGIN/END (a stack per track uuid) and INSTANT, counters from COUNTER values, args
// from debug annotations, names and categories through each sequence's interning tables, and
// (for traces written by others) flows from flow_ids / terminating_flow_ids.
//
// Two modes. A generic Perfetto trace: tracks come from the descriptors (thread/process
// descriptors become host tracks; named tracks async or counter tracks), events on an
// undescribed uuid are counted in pb_unknown_track, ENDs with nothing open in
// pb_unmatched_end. Our own files (UseOwnTracks): the payload maps every uuid to its model
// track and gives the timestamp shift; slices that never ended keep dur -1; flows come from
// the payload.
//
// Slices are added in the order of their SLICE_BEGIN (or INSTANT) events: the k-th one gets
// SliceOf(k). A slice is handed to the builder once it and all earlier ones have ended.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "import/perfetto/intern_table.h"
#include "model/trace_builder.h"
#include "perfetto_trace.pb.h"

namespace cprof {

class TrackEventImporter {
 public:
  TrackEventImporter(TraceBuilder* builder, std::string path);

  void UseOwnTracks(uint64_t ts_shift);
  void MapUuid(uint64_t uuid, TrackId track) { Uuid(uuid).track = track; }

  // A packet that is not private payload. Oddities are counted in import stats.
  Status AddPacket(const perfetto::protos::TracePacket& packet);
  // Hands over the slices still pending and, for generic traces, flows and unused tracks.
  Status Finish();

  bool saw_events() const { return events_ > 0; }
  uint64_t slice_events() const { return slice_count_; }
  uint64_t counter_events() const { return counter_count_; }
  // The id of the k-th slice, after Finish().
  SliceId SliceOf(uint64_t k) const { return SliceId{static_cast<uint32_t>(slice_base_ + k)}; }

 private:
  struct Sequence {
    InternTable names, categories, keys, values;
    uint64_t default_track = 0;
    std::vector<uint64_t> default_extra_counters, default_extra_double_counters;
    void Clear() {
      names.Clear();
      categories.Clear();
      keys.Clear();
      values.Clear();
      default_track = 0;
      default_extra_counters.clear();
      default_extra_double_counters.clear();
    }
  };
  struct Descriptor {
    uint64_t parent = 0;
    std::string name;
    enum class Type : uint8_t { kNamed, kProcess, kThread, kCounter } type = Type::kNamed;
    int64_t pid = -1, tid = -1;
    std::string unit;
  };
  struct UuidState {
    TrackId track = kNoTrack;
    bool resolved = false;
    std::vector<uint64_t> open;  // slice numbers open on this uuid, innermost last
  };

  UuidState& Uuid(uint64_t uuid) { return uuids_[uuid]; }
  void AddDescriptor(const perfetto::protos::TrackDescriptor& d);
  TrackId Resolve(uint64_t uuid, int depth = 0);
  Status AddEvent(const perfetto::protos::TracePacket& packet, Sequence& seq);
  void AddCounters(const perfetto::protos::TrackEvent& ev, const Sequence& seq, int64_t ts);
  // The event's annotations as a new arg set, after the args of `merge_with` (END events add
  // to their slice's args).
  ArgSetId ReadArgs(const perfetto::protos::TrackEvent& ev, const Sequence& seq, ArgSetId merge_with);
  void ReadAnnotation(const perfetto::protos::DebugAnnotation& a, const Sequence& seq, const std::string& prefix,
                      bool array_element, int depth);
  StringId Lookup(const InternTable& table, uint64_t iid);
  void BindFlows(const perfetto::protos::TrackEvent& ev, uint64_t slice);
  void FlushEnded();
  SliceTable::Row& Pending(uint64_t k) { return pending_[k - pending_base_]; }

  TraceBuilder* b_;
  std::string path_;
  bool own_ = false;
  uint64_t ts_shift_ = 0;
  uint64_t events_ = 0;
  int64_t max_ts_ = INT64_MIN;

  std::unordered_map<uint32_t, Sequence> sequences_;
  std::unordered_map<uint64_t, Descriptor> descriptors_;
  std::vector<uint64_t> descriptor_order_;
  std::unordered_map<uint64_t, UuidState> uuids_;
  uint64_t last_uuid_ = 0;
  UuidState* last_state_ = nullptr;

  // Slices in BEGIN order; [pending_base_, pending_base_ + pending_.size()) not yet handed over.
  std::deque<SliceTable::Row> pending_;
  uint64_t pending_base_ = 0;
  uint64_t slice_count_ = 0;
  uint64_t counter_count_ = 0;
  uint64_t slice_base_ = 0;  // SliceId of slice number 0

  std::unordered_map<uint64_t, uint64_t> open_flows_;    // flow id -> slice number of its last step
  std::vector<std::pair<uint64_t, uint64_t>> flows_;     // slice numbers
  std::string scratch_key_;
};

}  // namespace cprof
