// Private payload import.
#include "import/perfetto/payload_importer.h"

#include "proto/cprof_payload_format.h"

namespace cprof {
namespace {

constexpr uint32_t kMaxTrackKind = static_cast<uint32_t>(TrackKind::kCpuCore);
constexpr uint32_t kMaxFlowKind = static_cast<uint32_t>(FlowKind::kHostToDevice);

// Every column of a chunk must have as many rows as the first.
template <typename... Cols>
bool SameSize(int n, const Cols&... cols) {
  return ((cols.size() == n) && ...);
}

}  // namespace

PayloadImporter::PayloadImporter(TraceBuilder* builder, TrackEventImporter* events, std::string path)
    : b_(builder), events_(events), path_(std::move(path)) {}

Status PayloadImporter::Error(std::string_view reason) const {
  return InvalidInput("{}: byte {}: cann-profiler payload: {}", path_, offset_, reason);
}

StatusOr<StringId> PayloadImporter::Str(uint32_t id) const {
  if (id >= strings_.size()) {
    return Error(fmt::format("string id {} is not among the {} strings sent so far", id, strings_.size() - 1));
  }
  return strings_[id];
}

StatusOr<TrackId> PayloadImporter::TrackRef(uint32_t ref) const {
  if (ref == 0) return kNoTrack;
  if (ref > header_.tracks()) return Error(fmt::format("track ref {} beyond the {} tracks", ref, header_.tracks()));
  return TrackId{track_base_ + ref - 1};
}

Status PayloadImporter::Add(std::string_view bytes, uint64_t offset) {
  offset_ = offset;
  if (!chunk_.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
    return Error("malformed chunk (protobuf parse failed)");
  }
  if (chunk_.has_header()) return AddHeader(chunk_.header());
  if (!seen_header_) return Error("chunk before the payload header");
  if (seen_trailer_) return Error("chunk after the payload trailer");
  if (continuing_ && !chunk_.has_strings()) return Error("a split string is not continued");
  switch (chunk_.chunk_case()) {
    case pb::CprofPayload::kStrings: return AddStrings(chunk_.strings());
    case pb::CprofPayload::kTracks: return AddTracks(chunk_.tracks());
    case pb::CprofPayload::kUuids: return AddUuids(chunk_.uuids());
    case pb::CprofPayload::kFrames: return AddFrames(chunk_.frames());
    case pb::CprofPayload::kStacks: return AddStacks(chunk_.stacks());
    case pb::CprofPayload::kSamples: return AddSamples(chunk_.samples());
    case pb::CprofPayload::kMemoryEvents: return AddMemoryEvents(chunk_.memory_events());
    case pb::CprofPayload::kFlows: return AddFlows(chunk_.flows());
    case pb::CprofPayload::kMetadata: return AddMetadata(chunk_.metadata());
    case pb::CprofPayload::kImportStats: return AddImportStats(chunk_.import_stats());
    case pb::CprofPayload::kTrailer: seen_trailer_ = true; return Status::Ok();
    default: return Error("chunk of an unknown kind (written by a newer cann-profiler?)");
  }
}

Status PayloadImporter::AddHeader(const pb::Header& h) {
  if (seen_header_) return Error("a second payload header (concatenated files are not supported)");
  if (events_->saw_events()) return Error("payload header after track events");
  if (h.format_version() == 0 || h.format_version() > pb::kPayloadFormatVersion) {
    return Error(fmt::format("format version {} (this build reads up to {}; written by a newer cann-profiler?)",
                             h.format_version(), pb::kPayloadFormatVersion));
  }
  seen_header_ = true;
  header_ = h;
  track_base_ = static_cast<uint32_t>(b_->tracks().size());
  events_->UseOwnTracks(static_cast<uint64_t>(h.ts_shift()));
  return Status::Ok();
}

Status PayloadImporter::AddStrings(const pb::StringChunk& c) {
  for (int i = 0; i < c.value_size(); ++i) {
    const bool last = i + 1 == c.value_size();
    if (last && c.last_continues()) {
      partial_ += c.value(i);
      continuing_ = true;
      return Status::Ok();
    }
    if (continuing_) {
      partial_ += c.value(i);
      strings_.push_back(b_->Intern(partial_));
      partial_.clear();
      continuing_ = false;
    } else {
      strings_.push_back(b_->Intern(c.value(i)));
    }
  }
  return Status::Ok();
}

Status PayloadImporter::AddTracks(const pb::TrackChunk& c) {
  const int n = c.parent_ref_size();
  if (!SameSize(n, c.kind(), c.name_id(), c.pid(), c.tid(), c.device(), c.stream(), c.rank(), c.sort_index(),
                c.unit_id())) {
    return Error("track chunk columns differ in length");
  }
  for (int i = 0; i < n; ++i) {
    const uint64_t self = tracks_ + 1;  // this row's ref
    if (c.parent_ref(i) == self) return Error(fmt::format("track {} is its own parent", tracks_));
    ASSIGN_OR_RETURN(TrackId parent, TrackRef(c.parent_ref(i)));
    if (c.kind(i) > kMaxTrackKind) return Error(fmt::format("track {} has unknown kind {}", tracks_, c.kind(i)));
    ASSIGN_OR_RETURN(StringId name, Str(c.name_id(i)));
    ASSIGN_OR_RETURN(StringId unit, Str(c.unit_id(i)));
    const TrackId id = b_->AddTrack({.parent_id = parent,
                                     .kind = static_cast<TrackKind>(c.kind(i)),
                                     .name_id = name,
                                     .pid = c.pid(i),
                                     .tid = c.tid(i),
                                     .device = c.device(i),
                                     .stream = c.stream(i),
                                     .rank = c.rank(i),
                                     .sort_index = c.sort_index(i),
                                     .unit_id = unit});
    if (Index(id) != track_base_ + tracks_) return Error("tracks added out of order");
    ++tracks_;
  }
  return Status::Ok();
}

Status PayloadImporter::AddUuids(const pb::UuidChunk& c) {
  if (c.uuid_size() != c.track_size()) return Error("uuid chunk columns differ in length");
  for (int i = 0; i < c.uuid_size(); ++i) {
    if (c.track(i) >= tracks_) return Error(fmt::format("uuid {} names track {} before it was sent", c.uuid(i), c.track(i)));
    events_->MapUuid(c.uuid(i), TrackId{track_base_ + c.track(i)});
  }
  return Status::Ok();
}

Status PayloadImporter::AddFrames(const pb::FrameChunk& c) {
  const int n = c.function_id_size();
  if (!SameSize(n, c.module_id(), c.address(), c.file_id(), c.line())) return Error("frame chunk columns differ in length");
  for (int i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(StringId function, Str(c.function_id(i)));
    ASSIGN_OR_RETURN(StringId module, Str(c.module_id(i)));
    ASSIGN_OR_RETURN(StringId file, Str(c.file_id(i)));
    frames_.push_back(b_->AddFrame(
        {.function_id = function, .module_id = module, .address = c.address(i), .file_id = file, .line = c.line(i)}));
  }
  return Status::Ok();
}

Status PayloadImporter::AddStacks(const pb::StackChunk& c) {
  if (c.parent_ref_size() != c.frame_ref_size()) return Error("stack chunk columns differ in length");
  for (int i = 0; i < c.parent_ref_size(); ++i) {
    // Stacks are interned bottom-up, so a parent always comes before its children.
    const uint32_t parent = c.parent_ref(i), frame = c.frame_ref(i);
    if (parent > stacks_.size()) return Error(fmt::format("stack {} refers to a later parent {}", stacks_.size(), parent - 1));
    if (frame > frames_.size()) return Error(fmt::format("stack {} refers to unknown frame {}", stacks_.size(), frame - 1));
    stacks_.push_back(b_->AddStack(parent ? stacks_[parent - 1] : kNoStack, frame ? frames_[frame - 1] : kNoFrame));
  }
  return Status::Ok();
}

Status PayloadImporter::AddSamples(const pb::SampleChunk& c) {
  const int n = c.ts_ns_size();
  if (!SameSize(n, c.track_ref(), c.stack_ref(), c.weight())) return Error("sample chunk columns differ in length");
  for (int i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(TrackId track, TrackRef(c.track_ref(i)));
    const uint32_t stack = c.stack_ref(i);
    if (stack > stacks_.size()) return Error(fmt::format("sample {} refers to unknown stack {}", samples_, stack - 1));
    b_->AddSample(
        {.ts_ns = c.ts_ns(i), .track_id = track, .stack_id = stack ? stacks_[stack - 1] : kNoStack, .weight = c.weight(i)});
    ++samples_;
  }
  return Status::Ok();
}

Status PayloadImporter::AddMemoryEvents(const pb::MemoryEventChunk& c) {
  const int n = c.ts_ns_size();
  if (!SameSize(n, c.track_ref(), c.device(), c.address(), c.bytes(), c.total_allocated(), c.total_reserved())) {
    return Error("memory event chunk columns differ in length");
  }
  for (int i = 0; i < n; ++i) {
    ASSIGN_OR_RETURN(TrackId track, TrackRef(c.track_ref(i)));
    b_->AddMemoryEvent({.ts_ns = c.ts_ns(i),
                        .track_id = track,
                        .device = c.device(i),
                        .address = c.address(i),
                        .bytes = c.bytes(i),
                        .total_allocated = c.total_allocated(i),
                        .total_reserved = c.total_reserved(i)});
    ++memory_events_;
  }
  return Status::Ok();
}

Status PayloadImporter::AddFlows(const pb::FlowChunk& c) {
  const int n = c.out_slice_ref_size();
  if (!SameSize(n, c.in_slice_ref(), c.kind(), c.name_id())) return Error("flow chunk columns differ in length");
  for (int i = 0; i < n; ++i) {
    if (c.kind(i) > kMaxFlowKind) return Error(fmt::format("flow {} has unknown kind {}", flows_.size(), c.kind(i)));
    ASSIGN_OR_RETURN(StringId name, Str(c.name_id(i)));
    flows_.push_back({c.out_slice_ref(i), c.in_slice_ref(i), c.kind(i), name});
  }
  return Status::Ok();
}

Status PayloadImporter::AddMetadata(const pb::MetadataChunk& c) {
  for (const auto& e : c.entry()) {
    ASSIGN_OR_RETURN(StringId key, Str(e.key_id()));
    const pb::Value& v = e.value();
    Value value;
    switch (v.v_case()) {
      case pb::Value::kIntValue: value = Value::Int(v.int_value()); break;
      case pb::Value::kUintValue: value = Value::Uint(v.uint_value()); break;
      case pb::Value::kDoubleValue: value = Value::Double(v.double_value()); break;
      case pb::Value::kBoolValue: value = Value::Bool(v.bool_value()); break;
      case pb::Value::kStringId: {
        ASSIGN_OR_RETURN(StringId s, Str(v.string_id()));
        value = Value::String(s);
        break;
      }
      default: break;  // null
    }
    b_->SetMetadata(b_->trace().Str(key), value);
    ++metadata_;
  }
  return Status::Ok();
}

Status PayloadImporter::AddImportStats(const pb::ImportStatChunk& c) {
  if (c.name_size() != c.count_size()) return Error("import stat chunk columns differ in length");
  for (int i = 0; i < c.name_size(); ++i) {
    // A stat this build does not know (a newer writer's) has nowhere to go.
    if (auto stat = ImportStatFromName(c.name(i))) stats_.Add(*stat, c.count(i));
  }
  return Status::Ok();
}

Status PayloadImporter::Finish(uint64_t end_offset) {
  offset_ = end_offset;
  if (!seen_trailer_) return Error("truncated: the file ends before the payload trailer");
  const pb::Header& h = header_;
  auto check = [&](std::string_view what, uint64_t expected, uint64_t got) -> Status {
    if (expected == got) return Status::Ok();
    return Error(fmt::format("truncated or inconsistent: the header promises {} {}, the file has {}", expected, what, got));
  };
  RETURN_IF_ERROR(check("strings", h.strings(), strings_.size() - 1));
  RETURN_IF_ERROR(check("tracks", h.tracks(), tracks_));
  RETURN_IF_ERROR(check("slices", h.slices(), events_->slice_events()));
  RETURN_IF_ERROR(check("counter values", h.counters(), events_->counter_events()));
  RETURN_IF_ERROR(check("flows", h.flows(), flows_.size()));
  RETURN_IF_ERROR(check("memory events", h.memory_events(), memory_events_));
  RETURN_IF_ERROR(check("samples", h.samples(), samples_));
  RETURN_IF_ERROR(check("stacks", h.stacks(), stacks_.size()));
  RETURN_IF_ERROR(check("frames", h.frames(), frames_.size()));
  RETURN_IF_ERROR(check("metadata entries", h.metadata(), metadata_));

  // Parent links must not loop (TrackPath and the UI walk them).
  const TrackTable& t = b_->tracks();
  for (uint32_t i = 0; i < tracks_; ++i) {
    uint32_t steps = 0;
    for (TrackId cur = t.parent_id[track_base_ + i]; cur != kNoTrack; cur = t.parent_id[Index(cur)]) {
      if (++steps > tracks_) return Error(fmt::format("track {} is its own ancestor", i));
    }
  }

  const uint64_t slices = events_->slice_events();
  for (size_t i = 0; i < flows_.size(); ++i) {
    const Flow& f = flows_[i];
    if (f.out_ref == 0 || f.in_ref == 0 || f.out_ref > slices || f.in_ref > slices) {
      return Error(fmt::format("flow {} refers to a slice outside the {} slices", i, slices));
    }
    b_->AddFlow(events_->SliceOf(f.out_ref - 1), events_->SliceOf(f.in_ref - 1), static_cast<FlowKind>(f.kind), f.name);
  }

  // The saved stats already count what Finalize() would count again; keep what this read
  // itself counted on top.
  ImportStats final_stats = stats_;
  final_stats.Merge(b_->stats());
  b_->SetFinalStats(final_stats);
  return Status::Ok();
}

}  // namespace cprof
