// TrackEvent packets with interning for the Perfetto export.
#include "export/perfetto/track_event_writer.h"

#include "proto/cprof_payload_format.h"

namespace cprof {

using perfetto::protos::TracePacket;
using perfetto::protos::TrackEvent;

TrackEventWriter::TrackEventWriter(const Trace& trace, uint64_t ts_shift, PacketSink* sink)
    : trace_(trace), ts_shift_(ts_shift), sink_(sink) {
  const size_t n = trace.strings.size();
  sent_names_.assign(n, false);
  sent_categories_.assign(n, false);
  sent_keys_.assign(n, false);
  sent_values_.assign(n, false);
}

TrackEvent* TrackEventWriter::StartEvent(uint64_t packet_ts, uint64_t uuid) {
  // Reuse the packet's messages: TracePacket::Clear() would free the track_event (a oneof
  // member) and cost an allocation per event.
  packet_.clear_interned_data();
  packet_.clear_sequence_flags();
  uses_interning_ = false;
  packet_.set_timestamp(packet_ts);
  packet_.set_trusted_packet_sequence_id(pb::kSequenceId);
  TrackEvent* ev = packet_.mutable_track_event();
  ev->Clear();
  ev->set_track_uuid(uuid);
  return ev;
}

uint64_t TrackEventWriter::InternName(StringId id) {
  uses_interning_ = true;
  if (!sent_names_[Index(id)]) {
    sent_names_[Index(id)] = true;
    auto* e = packet_.mutable_interned_data()->add_event_names();
    e->set_iid(Index(id));
    e->set_name(std::string(trace_.Str(id)));
  }
  return Index(id);
}

uint64_t TrackEventWriter::InternCategory(StringId id) {
  uses_interning_ = true;
  if (!sent_categories_[Index(id)]) {
    sent_categories_[Index(id)] = true;
    auto* e = packet_.mutable_interned_data()->add_event_categories();
    e->set_iid(Index(id));
    e->set_name(std::string(trace_.Str(id)));
  }
  return Index(id);
}

uint64_t TrackEventWriter::InternKey(StringId id) {
  uses_interning_ = true;
  if (!sent_keys_[Index(id)]) {
    sent_keys_[Index(id)] = true;
    auto* e = packet_.mutable_interned_data()->add_debug_annotation_names();
    e->set_iid(Index(id));
    e->set_name(std::string(trace_.Str(id)));
  }
  return Index(id);
}

uint64_t TrackEventWriter::InternValue(StringId id) {
  uses_interning_ = true;
  if (!sent_values_[Index(id)]) {
    sent_values_[Index(id)] = true;
    auto* e = packet_.mutable_interned_data()->add_debug_annotation_string_values();
    e->set_iid(Index(id));
    e->set_str(std::string(trace_.Str(id)));
  }
  return Index(id);
}

Status TrackEventWriter::Begin(uint32_t row, uint64_t uuid, std::span<const uint64_t> flow_ids,
                               std::span<const uint64_t> terminating_flow_ids) {
  const SliceTable& s = trace_.slices;
  const size_t strings = trace_.strings.size();
  if (Index(s.name_id[row]) >= strings) return BadString(row, s.name_id[row]);
  if (Index(s.category_id[row]) >= strings) return BadString(row, s.category_id[row]);
  TrackEvent* ev = StartEvent(PacketTs(s.ts_ns[row]), uuid);
  ev->set_type(TrackEvent::TYPE_SLICE_BEGIN);
  // Interned ids must be nonzero: the empty string (id 0) is sent inline or left out.
  if (s.name_id[row] != kEmptyString) ev->set_name_iid(InternName(s.name_id[row]));
  if (s.category_id[row] != kEmptyString) ev->add_category_iids(InternCategory(s.category_id[row]));
  if (s.correlation_id[row] != kNoCorrelation) {
    ev->set_correlation_id(static_cast<uint64_t>(s.correlation_id[row]));
  }
  for (uint64_t id : flow_ids) ev->add_flow_ids(id);
  for (uint64_t id : terminating_flow_ids) ev->add_terminating_flow_ids(id);

  const ArgSetId set = s.arg_set_id[row];
  if (set != kNoArgs && Index(set) < trace_.args.set_count()) {
    const ArgTable& args = trace_.args;
    for (uint32_t r = args.begin(set); r < args.end(set); ++r) {
      if (Index(args.key_id[r]) >= strings) return BadString(row, args.key_id[r]);
      if (args.value[r].type == Value::Type::kString && Index(args.value[r].s) >= strings) {
        return BadString(row, args.value[r].s);
      }
      auto* a = ev->add_debug_annotations();
      if (args.key_id[r] == kEmptyString) {
        a->set_name("");
      } else {
        a->set_name_iid(InternKey(args.key_id[r]));
      }
      const Value& v = args.value[r];
      switch (v.type) {
        case Value::Type::kNull: break;  // no value field: trace_processor adds no entry
        case Value::Type::kInt: a->set_int_value(v.i); break;
        case Value::Type::kUint: a->set_uint_value(v.u); break;
        case Value::Type::kDouble: a->set_double_value(v.d); break;
        case Value::Type::kBool: a->set_bool_value(v.b); break;
        case Value::Type::kString:
          if (v.s == kEmptyString) {
            a->set_string_value("");
          } else {
            a->set_string_value_iid(InternValue(v.s));
          }
          break;
      }
    }
  }
  if (uses_interning_) packet_.set_sequence_flags(TracePacket::SEQ_NEEDS_INCREMENTAL_STATE);
  return sink_->Write(packet_);
}

Status TrackEventWriter::BadString(uint32_t row, StringId id) const {
  return Internal("slice {}: string id {} is not in the trace's string pool ({} strings)", row, Index(id),
                  trace_.strings.size());
}

Status TrackEventWriter::End(uint32_t row, uint64_t uuid) {
  const uint64_t end = PacketTs(trace_.slices.ts_ns[row]) + static_cast<uint64_t>(trace_.slices.dur_ns[row]);
  StartEvent(end, uuid)->set_type(TrackEvent::TYPE_SLICE_END);
  return sink_->Write(packet_);
}

Status TrackEventWriter::Counter(uint64_t uuid, int64_t ts_ns, double value) {
  TrackEvent* ev = StartEvent(PacketTs(ts_ns), uuid);
  ev->set_type(TrackEvent::TYPE_COUNTER);
  ev->set_double_counter_value(value);
  return sink_->Write(packet_);
}

}  // namespace cprof
