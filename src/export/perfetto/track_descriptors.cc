// TrackDescriptor packets for the Perfetto export.
#include "export/perfetto/track_descriptors.h"

#include <limits>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "proto/cprof_payload_format.h"

namespace cprof {
namespace {

using perfetto::protos::TrackDescriptor;

bool FitsInt32(int64_t v) { return v >= 0 && v <= std::numeric_limits<int32_t>::max(); }

// A readable name for the UI when the model has none (our reader takes names from the payload).
std::string DisplayName(const Trace& trace, uint32_t t) {
  const TrackTable& tr = trace.tracks;
  std::string_view name = trace.Str(tr.name_id[t]);
  if (!name.empty()) return std::string(name);
  switch (tr.kind[t]) {
    case TrackKind::kProcess: return fmt::format("process {}", tr.pid[t]);
    case TrackKind::kThread: return fmt::format("thread {}", tr.tid[t]);
    case TrackKind::kDevice: return fmt::format("device {}", tr.device[t]);
    case TrackKind::kGpuStream:
    case TrackKind::kNpuStream: return fmt::format("stream {}", tr.stream[t]);
    default: return fmt::format("{} {}", TrackKindName(tr.kind[t]), t);
  }
}

class DescriptorWriter {
 public:
  DescriptorWriter(const Trace& trace, const TrackLayout& layout, PacketSink* sink)
      : trace_(trace), layout_(layout), sink_(sink) {}

  Status Run() {
    const TrackTable& tr = trace_.tracks;
    const uint32_t n = static_cast<uint32_t>(tr.size());
    // Which tracks become process/thread descriptors: the first one per pid / (pid, tid), as
    // trace_processor would fold duplicates into one thread.
    is_process_.assign(n, false);
    is_thread_.assign(n, false);
    explicit_order_.assign(n, false);
    std::set<int64_t> pids;
    std::set<std::pair<int64_t, int64_t>> threads;
    for (uint32_t t = 0; t < n; ++t) {
      if (tr.kind[t] == TrackKind::kProcess && FitsInt32(tr.pid[t]) && pids.insert(tr.pid[t]).second) {
        is_process_[t] = true;
      } else if (tr.kind[t] == TrackKind::kThread && FitsInt32(tr.pid[t]) && tr.tid[t] >= 0 &&
                 threads.insert({tr.pid[t], tr.tid[t]}).second) {
        is_thread_[t] = true;
      }
      const TrackId parent = tr.parent_id[t];
      if (parent != kNoTrack && Index(parent) < n && tr.sort_index[t] != 0) explicit_order_[Index(parent)] = true;
    }
    for (uint32_t t = 0; t < n; ++t) RETURN_IF_ERROR(WriteMain(t));
    for (const TrackLayout::SideTrack& side : layout_.side_tracks()) RETURN_IF_ERROR(WriteSide(side));
    return Status::Ok();
  }

 private:
  uint64_t ParentUuid(uint32_t t) const {
    const TrackId parent = trace_.tracks.parent_id[t];
    if (parent == kNoTrack || Index(parent) >= trace_.tracks.size()) return 0;
    return TrackLayout::MainUuid(Index(parent));
  }

  TrackDescriptor* Start() {
    packet_.Clear();
    packet_.set_trusted_packet_sequence_id(pb::kSequenceId);
    return packet_.mutable_track_descriptor();
  }

  void SetNamed(TrackDescriptor* d, std::string name, uint64_t parent) {
    d->set_name(std::move(name));
    if (parent) d->set_parent_uuid(parent);
    d->set_sibling_merge_behavior(TrackDescriptor::SIBLING_MERGE_BEHAVIOR_NONE);
  }

  Status WriteMain(uint32_t t) {
    const TrackTable& tr = trace_.tracks;
    TrackDescriptor* d = Start();
    d->set_uuid(TrackLayout::MainUuid(t));
    std::string_view name = trace_.Str(tr.name_id[t]);
    if (is_process_[t]) {
      auto* p = d->mutable_process();
      p->set_pid(static_cast<int32_t>(tr.pid[t]));
      if (!name.empty()) p->set_process_name(std::string(name));
    } else if (is_thread_[t]) {
      auto* th = d->mutable_thread();
      th->set_pid(static_cast<int32_t>(tr.pid[t]));
      th->set_tid(tr.tid[t]);
      if (!name.empty()) th->set_thread_name(std::string(name));
    } else {
      SetNamed(d, DisplayName(trace_, t), ParentUuid(t));
      if (tr.kind[t] == TrackKind::kCounter) {
        auto* c = d->mutable_counter();
        std::string_view unit = trace_.Str(tr.unit_id[t]);
        if (!unit.empty()) c->set_unit_name(std::string(unit));
      }
    }
    if (explicit_order_[t]) d->set_child_ordering(TrackDescriptor::EXPLICIT);
    if (ParentUuid(t) && tr.sort_index[t] != 0) d->set_sibling_order_rank(tr.sort_index[t]);
    return sink_->Write(packet_);
  }

  Status WriteSide(const TrackLayout::SideTrack& side) {
    const uint32_t t = side.track;
    const TrackTable& tr = trace_.tracks;
    TrackDescriptor* d = Start();
    d->set_uuid(side.uuid);
    // Beside the main track: under its parent, or next to a process/thread (Perfetto shows
    // children of those beside them).
    const bool host = is_process_[t] || is_thread_[t];
    const uint64_t parent = host ? TrackLayout::MainUuid(t) : ParentUuid(t);
    std::string name = DisplayName(trace_, t);
    if (side.is_counter) {
      SetNamed(d, name, parent);
      auto* c = d->mutable_counter();
      std::string_view unit = trace_.Str(tr.unit_id[t]);
      if (!unit.empty()) c->set_unit_name(std::string(unit));
    } else if (side.lane == 0) {
      SetNamed(d, name + " (slices)", parent);
    } else {
      SetNamed(d, fmt::format("{} (overlap {})", name, side.lane), parent);
    }
    return sink_->Write(packet_);
  }

  const Trace& trace_;
  const TrackLayout& layout_;
  PacketSink* sink_;
  perfetto::protos::TracePacket packet_;
  std::vector<bool> is_process_, is_thread_, explicit_order_;
};

}  // namespace

Status WriteTrackDescriptors(const Trace& trace, const TrackLayout& layout, PacketSink* sink) {
  return DescriptorWriter(trace, layout, sink).Run();
}

}  // namespace cprof
