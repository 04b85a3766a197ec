// Private payload chunks of the Perfetto export.
#include "export/perfetto/payload_writer.h"

#include <algorithm>

#include "proto/cprof_payload_format.h"

namespace cprof {
namespace {

using pb::ToRef;

// Rows per chunk for a table whose encoded row takes at most `row_bytes`.
constexpr size_t RowsPerChunk(size_t row_bytes) { return pb::kPayloadChunkBytes / row_bytes; }

// Calls fn(begin, end) for consecutive row ranges of at most `rows` rows.
template <typename Fn>
Status ForChunks(size_t n, size_t rows, Fn fn) {
  for (size_t b = 0; b < n; b += rows) RETURN_IF_ERROR(fn(b, std::min(n, b + rows)));
  return Status::Ok();
}

Status BadRef(std::string_view table, size_t row, std::string_view column, uint32_t id, size_t size) {
  return Internal("{} row {}: {} {} is outside its table ({} rows)", table, row, column, id, size);
}

}  // namespace

PayloadWriter::PayloadWriter(const Trace& trace, const TrackLayout& layout, uint64_t ts_shift, PacketSink* sink)
    : trace_(trace), layout_(layout), ts_shift_(ts_shift), sink_(sink) {}

Status PayloadWriter::Emit() {
  packet_.Clear();
  packet_.set_trusted_packet_sequence_id(pb::kSequenceId);
  chunk_.SerializeToString(packet_.mutable_cann_private_payload());
  chunk_.Clear();
  return sink_->Write(packet_);
}

Status PayloadWriter::WriteTables() {
  RETURN_IF_ERROR(WriteHeader());
  RETURN_IF_ERROR(WriteStrings());
  RETURN_IF_ERROR(WriteTracks());
  RETURN_IF_ERROR(WriteUuids());
  RETURN_IF_ERROR(WriteFrames());
  RETURN_IF_ERROR(WriteStacks());
  RETURN_IF_ERROR(WriteSamples());
  RETURN_IF_ERROR(WriteMemoryEvents());
  RETURN_IF_ERROR(WriteFlows());
  RETURN_IF_ERROR(WriteMetadata());
  return WriteImportStats();
}

Status PayloadWriter::WriteTrailer() {
  chunk_.mutable_trailer();
  return Emit();
}

Status PayloadWriter::WriteHeader() {
  auto* h = chunk_.mutable_header();
  h->set_format_version(pb::kPayloadFormatVersion);
  h->set_producer("cann-profiler " CPROF_VERSION_STRING);
  h->set_ts_shift(static_cast<int64_t>(ts_shift_));
  h->set_strings(trace_.strings.size() - 1);
  h->set_tracks(trace_.tracks.size());
  h->set_slices(trace_.slices.size());
  h->set_counters(trace_.counters.size());
  h->set_flows(trace_.flows.size());
  h->set_memory_events(trace_.memory_events.size());
  h->set_samples(trace_.samples.size());
  h->set_stacks(trace_.stacks.size());
  h->set_frames(trace_.frames.size());
  h->set_metadata(trace_.metadata.size());
  return Emit();
}

Status PayloadWriter::WriteStrings() {
  // Whole strings while they fit; a string longer than the room left is split, and the chunk
  // says that its last value continues in the next one.
  size_t used = 0;
  auto* c = chunk_.mutable_strings();
  for (uint32_t id = 1; id < trace_.strings.size(); ++id) {
    std::string_view s = trace_.Str(StringId{id});
    do {
      if (used >= pb::kPayloadChunkBytes) {
        RETURN_IF_ERROR(Emit());
        c = chunk_.mutable_strings();
        used = 0;
      }
      const size_t take = std::min(s.size(), pb::kPayloadChunkBytes - used);
      c->add_value(std::string(s.substr(0, take)));
      s.remove_prefix(take);
      used += take + 4;  // and a few bytes of framing
      if (!s.empty()) {
        c->set_last_continues(true);
        used = pb::kPayloadChunkBytes;
      }
    } while (!s.empty());
  }
  if (c->value_size() > 0) return Emit();
  chunk_.Clear();
  return Status::Ok();
}

Status PayloadWriter::WriteTracks() {
  const TrackTable& t = trace_.tracks;
  return ForChunks(t.size(), RowsPerChunk(80), [&](size_t b, size_t e) -> Status {
    auto* c = chunk_.mutable_tracks();
    for (size_t i = b; i < e; ++i) {
      const uint32_t parent = Index(t.parent_id[i]);
      if (t.parent_id[i] != kNoTrack && parent >= t.size()) return BadRef("track", i, "parent", parent, t.size());
      c->add_parent_ref(ToRef(parent));
      c->add_kind(static_cast<uint32_t>(t.kind[i]));
      c->add_name_id(Index(t.name_id[i]));
      c->add_pid(t.pid[i]);
      c->add_tid(t.tid[i]);
      c->add_device(t.device[i]);
      c->add_stream(t.stream[i]);
      c->add_rank(t.rank[i]);
      c->add_sort_index(t.sort_index[i]);
      c->add_unit_id(Index(t.unit_id[i]));
    }
    return Emit();
  });
}

Status PayloadWriter::WriteUuids() {
  // Main uuids first (track order), then side tracks.
  const uint32_t n = static_cast<uint32_t>(trace_.tracks.size());
  const auto& sides = layout_.side_tracks();
  const size_t total = n + sides.size();
  return ForChunks(total, RowsPerChunk(16), [&](size_t b, size_t e) -> Status {
    auto* c = chunk_.mutable_uuids();
    for (size_t i = b; i < e; ++i) {
      if (i < n) {
        c->add_uuid(TrackLayout::MainUuid(static_cast<uint32_t>(i)));
        c->add_track(static_cast<uint32_t>(i));
      } else {
        c->add_uuid(sides[i - n].uuid);
        c->add_track(sides[i - n].track);
      }
    }
    return Emit();
  });
}

Status PayloadWriter::WriteFrames() {
  const FrameTable& f = trace_.frames;
  return ForChunks(f.size(), RowsPerChunk(40), [&](size_t b, size_t e) -> Status {
    auto* c = chunk_.mutable_frames();
    for (size_t i = b; i < e; ++i) {
      c->add_function_id(Index(f.function_id[i]));
      c->add_module_id(Index(f.module_id[i]));
      c->add_address(f.address[i]);
      c->add_file_id(Index(f.file_id[i]));
      c->add_line(f.line[i]);
    }
    return Emit();
  });
}

Status PayloadWriter::WriteStacks() {
  const StackTable& s = trace_.stacks;
  return ForChunks(s.size(), RowsPerChunk(10), [&](size_t b, size_t e) -> Status {
    auto* c = chunk_.mutable_stacks();
    for (size_t i = b; i < e; ++i) {
      const uint32_t parent = Index(s.parent_id[i]), frame = Index(s.frame_id[i]);
      if (s.parent_id[i] != kNoStack && parent >= s.size()) return BadRef("stack", i, "parent", parent, s.size());
      if (s.frame_id[i] != kNoFrame && frame >= trace_.frames.size()) {
        return BadRef("stack", i, "frame", frame, trace_.frames.size());
      }
      c->add_parent_ref(ToRef(parent));
      c->add_frame_ref(ToRef(frame));
    }
    return Emit();
  });
}

Status PayloadWriter::WriteSamples() {
  const SampleTable& s = trace_.samples;
  return ForChunks(s.size(), RowsPerChunk(32), [&](size_t b, size_t e) -> Status {
    auto* c = chunk_.mutable_samples();
    for (size_t i = b; i < e; ++i) {
      const uint32_t track = Index(s.track_id[i]), stack = Index(s.stack_id[i]);
      if (s.track_id[i] != kNoTrack && track >= trace_.tracks.size()) {
        return BadRef("sample", i, "track", track, trace_.tracks.size());
      }
      if (s.stack_id[i] != kNoStack && stack >= trace_.stacks.size()) {
        return BadRef("sample", i, "stack", stack, trace_.stacks.size());
      }
      c->add_ts_ns(s.ts_ns[i]);
      c->add_track_ref(ToRef(track));
      c->add_stack_ref(ToRef(stack));
      c->add_weight(s.weight[i]);
    }
    return Emit();
  });
}

Status PayloadWriter::WriteMemoryEvents() {
  const MemoryEventTable& m = trace_.memory_events;
  return ForChunks(m.size(), RowsPerChunk(72), [&](size_t b, size_t e) -> Status {
    auto* c = chunk_.mutable_memory_events();
    for (size_t i = b; i < e; ++i) {
      const uint32_t track = Index(m.track_id[i]);
      if (m.track_id[i] != kNoTrack && track >= trace_.tracks.size()) {
        return BadRef("memory_event", i, "track", track, trace_.tracks.size());
      }
      c->add_ts_ns(m.ts_ns[i]);
      c->add_track_ref(ToRef(track));
      c->add_device(m.device[i]);
      c->add_address(m.address[i]);
      c->add_bytes(m.bytes[i]);
      c->add_total_allocated(m.total_allocated[i]);
      c->add_total_reserved(m.total_reserved[i]);
    }
    return Emit();
  });
}

Status PayloadWriter::WriteFlows() {
  const FlowTable& f = trace_.flows;
  const size_t slices = trace_.slices.size();
  return ForChunks(f.size(), RowsPerChunk(24), [&](size_t b, size_t e) -> Status {
    auto* c = chunk_.mutable_flows();
    for (size_t i = b; i < e; ++i) {
      const uint32_t out = Index(f.out_slice_id[i]), in = Index(f.in_slice_id[i]);
      if (f.out_slice_id[i] != kNoSlice && out >= slices) return BadRef("flow", i, "out slice", out, slices);
      if (f.in_slice_id[i] != kNoSlice && in >= slices) return BadRef("flow", i, "in slice", in, slices);
      c->add_out_slice_ref(ToRef(out));
      c->add_in_slice_ref(ToRef(in));
      c->add_kind(static_cast<uint32_t>(f.kind[i]));
      c->add_name_id(Index(f.name_id[i]));
    }
    return Emit();
  });
}

Status PayloadWriter::WriteMetadata() {
  const MetadataTable& m = trace_.metadata;
  // Values are small except JSON texts, which are strings (sent in the string chunks).
  return ForChunks(m.size(), RowsPerChunk(32), [&](size_t b, size_t e) -> Status {
    auto* c = chunk_.mutable_metadata();
    for (size_t i = b; i < e; ++i) {
      auto* entry = c->add_entry();
      entry->set_key_id(Index(m.key_id[i]));
      auto* v = entry->mutable_value();
      const Value& x = m.value[i];
      switch (x.type) {
        case Value::Type::kNull: break;
        case Value::Type::kInt: v->set_int_value(x.i); break;
        case Value::Type::kUint: v->set_uint_value(x.u); break;
        case Value::Type::kDouble: v->set_double_value(x.d); break;
        case Value::Type::kString: v->set_string_id(Index(x.s)); break;
        case Value::Type::kBool: v->set_bool_value(x.b); break;
      }
    }
    return Emit();
  });
}

Status PayloadWriter::WriteImportStats() {
  auto* c = chunk_.mutable_import_stats();
  for (size_t i = 0; i < ImportStats::kCount; ++i) {
    const auto stat = static_cast<ImportStat>(i);
    if (trace_.stats.Get(stat) == 0) continue;
    c->add_name(std::string(GetImportStatInfo(stat).name));
    c->add_count(trace_.stats.Get(stat));
  }
  return Emit();
}

}  // namespace cprof
