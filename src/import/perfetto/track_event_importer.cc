// TrackDescriptor and TrackEvent import.
#include "import/perfetto/track_event_importer.h"

#include <algorithm>
#include <limits>

namespace cprof {

using perfetto::protos::DebugAnnotation;
using perfetto::protos::TracePacket;
using perfetto::protos::TrackDescriptor;
using perfetto::protos::TrackEvent;

namespace {
constexpr int kMaxNesting = 64;  // parent chains and nested annotations deeper than this are cut
}  // namespace

TrackEventImporter::TrackEventImporter(TraceBuilder* builder, std::string path)
    : b_(builder), path_(std::move(path)), slice_base_(builder->trace().slices.size()) {}

void TrackEventImporter::UseOwnTracks(uint64_t ts_shift) {
  own_ = true;
  ts_shift_ = ts_shift;
}

Status TrackEventImporter::AddPacket(const TracePacket& packet) {
  Sequence& seq = sequences_[packet.trusted_packet_sequence_id()];
  if ((packet.sequence_flags() & TracePacket::SEQ_INCREMENTAL_STATE_CLEARED) || packet.incremental_state_cleared()) {
    seq.Clear();
  }
  if (packet.has_interned_data()) {
    const auto& d = packet.interned_data();
    for (const auto& e : d.event_names()) seq.names.Set(e.iid(), b_->Intern(e.name()));
    for (const auto& e : d.event_categories()) seq.categories.Set(e.iid(), b_->Intern(e.name()));
    for (const auto& e : d.debug_annotation_names()) seq.keys.Set(e.iid(), b_->Intern(e.name()));
    for (const auto& e : d.debug_annotation_string_values()) seq.values.Set(e.iid(), b_->Intern(e.str()));
  }
  if (packet.has_trace_packet_defaults() && packet.trace_packet_defaults().has_track_event_defaults()) {
    const auto& d = packet.trace_packet_defaults().track_event_defaults();
    seq.default_track = d.track_uuid();
    seq.default_extra_counters.assign(d.extra_counter_track_uuids().begin(), d.extra_counter_track_uuids().end());
    seq.default_extra_double_counters.assign(d.extra_double_counter_track_uuids().begin(),
                                             d.extra_double_counter_track_uuids().end());
  }
  if (packet.has_track_event()) return AddEvent(packet, seq);
  if (packet.has_track_descriptor()) {
    if (!own_) AddDescriptor(packet.track_descriptor());  // ours: the payload says it all
    return Status::Ok();
  }
  const bool state_only = packet.has_interned_data() || packet.has_trace_packet_defaults() ||
                          packet.has_clock_snapshot() || packet.has_sequence_flags();
  if (!state_only && !packet.unknown_fields().empty()) b_->stats().Add(ImportStat::pb_unknown_packet);
  return Status::Ok();
}

void TrackEventImporter::AddDescriptor(const TrackDescriptor& d) {
  if (descriptors_.count(d.uuid())) return;  // re-sent descriptors: the first one wins
  Descriptor info;
  info.parent = d.parent_uuid();
  info.name = d.has_name() ? d.name() : d.static_name();
  if (d.has_thread() && d.thread().has_pid() && d.thread().has_tid()) {
    info.type = Descriptor::Type::kThread;
    info.pid = d.thread().pid();
    info.tid = d.thread().tid();
    if (info.name.empty()) info.name = d.thread().thread_name();
  } else if (d.has_process() && d.process().has_pid()) {
    info.type = Descriptor::Type::kProcess;
    info.pid = d.process().pid();
    if (info.name.empty()) info.name = d.process().process_name();
  } else if (d.has_counter()) {
    info.type = Descriptor::Type::kCounter;
    info.unit = d.counter().unit_name();
  }
  descriptors_.emplace(d.uuid(), std::move(info));
  descriptor_order_.push_back(d.uuid());
}

TrackId TrackEventImporter::Resolve(uint64_t uuid, int depth) {
  UuidState& st = (uuid == last_uuid_ && last_state_) ? *last_state_ : Uuid(uuid);
  last_uuid_ = uuid;
  last_state_ = &st;
  if (own_ || st.resolved) return st.track;
  st.resolved = true;  // set first: a parent cycle resolves to no parent
  auto it = descriptors_.find(uuid);
  if (it == descriptors_.end()) {
    if (uuid == 0) {  // the implicit global track of events that name none
      st.track = b_->AddTrack({.kind = TrackKind::kAsync, .name_id = b_->Intern("default track")});
    }
    return st.track;
  }
  const Descriptor& d = it->second;
  TrackId track = kNoTrack;
  switch (d.type) {
    case Descriptor::Type::kThread: track = b_->ThreadTrack(d.pid, d.tid); break;
    case Descriptor::Type::kProcess: track = b_->ProcessTrack(d.pid); break;
    case Descriptor::Type::kCounter:
    case Descriptor::Type::kNamed: {
      TrackTable::Row row{.kind = d.type == Descriptor::Type::kCounter ? TrackKind::kCounter : TrackKind::kAsync,
                          .name_id = b_->Intern(d.name),
                          .unit_id = b_->Intern(d.unit)};
      if (d.parent != 0 && d.parent != uuid && depth < kMaxNesting) {
        const TrackId parent = Resolve(d.parent, depth + 1);
        if (parent != kNoTrack) {
          const TrackTable& t = b_->tracks();
          row.parent_id = parent;
          row.pid = t.pid[Index(parent)];
          row.tid = t.tid[Index(parent)];
          row.device = t.device[Index(parent)];
          row.rank = t.rank[Index(parent)];
        }
      }
      track = b_->AddTrack(row);
      break;
    }
  }
  if ((d.type == Descriptor::Type::kThread || d.type == Descriptor::Type::kProcess) && !d.name.empty() &&
      b_->tracks().name_id[Index(track)] == kEmptyString) {
    b_->tracks().name_id[Index(track)] = b_->Intern(d.name);
  }
  // Recursion may have moved the cache; look the state up again before writing.
  UuidState& again = Uuid(uuid);
  again.track = track;
  last_uuid_ = uuid;
  last_state_ = &again;
  return track;
}

StringId TrackEventImporter::Lookup(const InternTable& table, uint64_t iid) {
  auto id = table.Get(iid);
  if (!id) {
    b_->stats().Add(ImportStat::pb_invalid_iid);
    return kEmptyString;
  }
  return *id;
}

void TrackEventImporter::ReadAnnotation(const DebugAnnotation& a, const Sequence& seq, const std::string& prefix,
                                        bool array_element, int depth) {
  // The key: interned or inline at the top level; nested entries are "parent.child" and
  // "parent[i]" (array elements carry no name of their own).
  StringId key = kEmptyString;
  std::string path;
  if (a.has_name_iid() && !array_element) {
    auto id = seq.keys.Get(a.name_iid());
    if (!id) {
      b_->stats().Add(ImportStat::pb_invalid_iid);
      return;
    }
    key = *id;
  } else if (!array_element) {
    key = b_->Intern(a.name());
  }
  const bool nested = depth > 0;
  if (nested) {
    std::string_view own = array_element ? std::string_view() : b_->trace().Str(key);
    path = own.empty() ? prefix : prefix + "." + std::string(own);
    key = b_->Intern(path);
  }

  Value v;
  if (a.has_bool_value()) {
    v = Value::Bool(a.bool_value());
  } else if (a.has_uint_value()) {
    v = Value::Uint(a.uint_value());
  } else if (a.has_int_value()) {
    v = Value::Int(a.int_value());
  } else if (a.has_double_value()) {
    v = Value::Double(a.double_value());
  } else if (a.has_string_value()) {
    v = Value::String(b_->Intern(a.string_value()));
  } else if (a.has_string_value_iid()) {
    auto id = seq.values.Get(a.string_value_iid());
    if (!id) {
      b_->stats().Add(ImportStat::pb_invalid_iid);
      return;
    }
    v = Value::String(*id);
  } else if (a.has_pointer_value()) {
    v = Value::Uint(a.pointer_value());
  } else if (a.dict_entries_size() > 0 || a.array_values_size() > 0) {
    if (depth >= kMaxNesting) return;
    if (!nested) path = std::string(b_->trace().Str(key));
    for (const auto& child : a.dict_entries()) ReadAnnotation(child, seq, path, false, depth + 1);
    for (int i = 0; i < a.array_values_size(); ++i) {
      ReadAnnotation(a.array_values(i), seq, path + "[" + std::to_string(i) + "]", true, depth + 1);
    }
    return;
  }
  // No value field at all: a null (that is how our writer sends one).
  b_->args().Add(key, v);
}

ArgSetId TrackEventImporter::ReadArgs(const TrackEvent& ev, const Sequence& seq, ArgSetId merge_with) {
  ArgTable& args = b_->args();
  if (merge_with != kNoArgs) {
    // end() of the last set moves as rows are added: take both bounds first.
    const uint32_t begin = args.begin(merge_with), end = args.end(merge_with);
    for (uint32_t r = begin; r < end; ++r) args.Add(args.key_id[r], args.value[r]);
  }
  static const std::string kNoPrefix;
  for (const auto& a : ev.debug_annotations()) ReadAnnotation(a, seq, kNoPrefix, false, 0);
  return args.Finish();
}

void TrackEventImporter::BindFlows(const TrackEvent& ev, uint64_t slice) {
  for (uint64_t id : ev.flow_ids()) {
    auto [it, inserted] = open_flows_.try_emplace(id, slice);
    if (!inserted) {
      flows_.emplace_back(it->second, slice);
      it->second = slice;
    }
  }
  for (uint64_t id : ev.terminating_flow_ids()) {
    auto it = open_flows_.find(id);
    if (it == open_flows_.end()) {
      b_->stats().Add(ImportStat::flow_unmatched);
      continue;
    }
    flows_.emplace_back(it->second, slice);
    open_flows_.erase(it);
  }
}

void TrackEventImporter::AddCounters(const TrackEvent& ev, const Sequence& seq, int64_t ts) {
  auto add = [&](uint64_t uuid, double value) {
    const TrackId track = Resolve(uuid);
    if (track == kNoTrack) {
      b_->stats().Add(ImportStat::pb_unknown_track);
      return;
    }
    b_->AddCounter(track, ts, value);
    ++counter_count_;
  };
  // The event's own track lists, else the sequence defaults.
  std::vector<uint64_t> uuids(ev.extra_counter_track_uuids().begin(), ev.extra_counter_track_uuids().end());
  if (uuids.empty()) uuids = seq.default_extra_counters;
  for (int i = 0; i < ev.extra_counter_values_size() && static_cast<size_t>(i) < uuids.size(); ++i) {
    add(uuids[i], static_cast<double>(ev.extra_counter_values(i)));
  }
  uuids.assign(ev.extra_double_counter_track_uuids().begin(), ev.extra_double_counter_track_uuids().end());
  if (uuids.empty()) uuids = seq.default_extra_double_counters;
  for (int i = 0; i < ev.extra_double_counter_values_size() && static_cast<size_t>(i) < uuids.size(); ++i) {
    add(uuids[i], ev.extra_double_counter_values(i));
  }
}

Status TrackEventImporter::AddEvent(const TracePacket& packet, Sequence& seq) {
  ++events_;
  const TrackEvent& ev = packet.track_event();
  if (!packet.has_timestamp()) {  // trace_processor drops these too
    b_->stats().Add(ImportStat::pb_unknown_packet);
    return Status::Ok();
  }
  const uint64_t raw = packet.timestamp() - ts_shift_;
  if (!own_ && raw > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) {
    b_->stats().Add(ImportStat::timestamp_out_of_range);
    return Status::Ok();
  }
  const int64_t ts = static_cast<int64_t>(raw);
  max_ts_ = std::max(max_ts_, ts);
  const uint64_t uuid = ev.has_track_uuid() ? ev.track_uuid() : seq.default_track;
  if (ev.extra_counter_values_size() || ev.extra_double_counter_values_size()) AddCounters(ev, seq, ts);

  switch (ev.type()) {
    case TrackEvent::TYPE_SLICE_BEGIN:
    case TrackEvent::TYPE_INSTANT: {
      const TrackId track = Resolve(uuid);
      if (track == kNoTrack) {
        b_->stats().Add(ImportStat::pb_unknown_track);
        return Status::Ok();
      }
      const bool instant = ev.type() == TrackEvent::TYPE_INSTANT;
      SliceTable::Row row{.ts_ns = ts, .dur_ns = instant ? 0 : -1, .track_id = track};
      if (ev.has_name_iid()) {
        row.name_id = Lookup(seq.names, ev.name_iid());
      } else if (ev.has_name()) {
        row.name_id = b_->Intern(ev.name());
      }
      if (ev.category_iids_size() == 1 && ev.categories_size() == 0) {
        row.category_id = Lookup(seq.categories, ev.category_iids(0));
      } else if (ev.category_iids_size() + ev.categories_size() > 0) {
        std::string joined;
        for (uint64_t iid : ev.category_iids()) {
          if (!joined.empty()) joined += ',';
          joined += b_->trace().Str(Lookup(seq.categories, iid));
        }
        for (const auto& c : ev.categories()) {
          if (!joined.empty()) joined += ',';
          joined += c;
        }
        row.category_id = b_->Intern(joined);
      }
      if (ev.has_correlation_id()) row.correlation_id = static_cast<int64_t>(ev.correlation_id());
      if (ev.debug_annotations_size() > 0) row.arg_set_id = ReadArgs(ev, seq, kNoArgs);
      const uint64_t k = slice_count_++;
      pending_.push_back(row);
      if (!instant) Uuid(uuid).open.push_back(k);
      if (!own_) BindFlows(ev, k);
      if (instant) FlushEnded();
      return Status::Ok();
    }
    case TrackEvent::TYPE_SLICE_END: {
      if (Resolve(uuid) == kNoTrack) {
        b_->stats().Add(ImportStat::pb_unknown_track);
        return Status::Ok();
      }
      std::vector<uint64_t>& open = Uuid(uuid).open;
      if (open.empty()) {
        b_->stats().Add(ImportStat::pb_unmatched_end);
        return Status::Ok();
      }
      const uint64_t k = open.back();
      open.pop_back();
      SliceTable::Row& row = Pending(k);
      // Differences of packet times, modulo 2^64: exact whatever the shift.
      int64_t dur = static_cast<int64_t>(raw - (static_cast<uint64_t>(row.ts_ns)));
      if (dur < 0) {
        b_->stats().Add(ImportStat::negative_duration);
        dur = 0;
      }
      row.dur_ns = dur;
      if (ev.debug_annotations_size() > 0) row.arg_set_id = ReadArgs(ev, seq, row.arg_set_id);
      if (!own_) BindFlows(ev, k);
      FlushEnded();
      return Status::Ok();
    }
    case TrackEvent::TYPE_COUNTER: {
      const TrackId track = Resolve(uuid);
      if (track == kNoTrack) {
        b_->stats().Add(ImportStat::pb_unknown_track);
        return Status::Ok();
      }
      if (ev.has_double_counter_value()) {
        b_->AddCounter(track, ts, ev.double_counter_value());
      } else if (ev.has_counter_value()) {
        b_->AddCounter(track, ts, static_cast<double>(ev.counter_value()));
      } else {
        b_->stats().Add(ImportStat::counter_non_numeric);
        return Status::Ok();
      }
      ++counter_count_;
      return Status::Ok();
    }
    default:
      // Legacy events (TYPE_UNSPECIFIED with legacy_event) are not read.
      b_->stats().Add(ImportStat::pb_unknown_packet);
      return Status::Ok();
  }
}

void TrackEventImporter::FlushEnded() {
  while (!pending_.empty() && pending_.front().dur_ns != -1) {
    b_->AddSlice(pending_.front());
    pending_.pop_front();
    ++pending_base_;
  }
}

Status TrackEventImporter::Finish() {
  // What is still pending: slices that never ended (ours keep dur -1, as written), and those
  // behind them.
  for (SliceTable::Row& row : pending_) {
    if (row.dur_ns == -1 && !own_) {
      row.dur_ns = std::max<int64_t>(0, max_ts_ - row.ts_ns);
      b_->stats().Add(ImportStat::unclosed_begin);
    }
    b_->AddSlice(row);
  }
  pending_base_ += pending_.size();
  pending_.clear();
  if (b_->trace().slices.size() != slice_base_ + slice_count_) {
    return Internal("{}: {} slices read but {} added", path_, slice_count_,
                    b_->trace().slices.size() - slice_base_);
  }
  if (own_) return Status::Ok();
  for (auto [out, in] : flows_) b_->AddFlow(SliceOf(out), SliceOf(in), FlowKind::kOther);
  // A flow id seen once links nothing.
  if (!open_flows_.empty()) b_->stats().Add(ImportStat::flow_unmatched, static_cast<int64_t>(open_flows_.size()));
  for (uint64_t uuid : descriptor_order_) Resolve(uuid);  // described tracks without events
  return Status::Ok();
}

}  // namespace cprof
