// Reads the private payload chunks of our own .pb files (src/proto/cprof_payload.proto) back
// into the model: strings, tracks, the uuid -> track map (handed to the TrackEventImporter),
// frames, stacks, samples, memory events, flows, metadata and import stats. Finish() checks
// that the file was complete (trailer present, every table as long as the header said) and
// adds the flows once slice ids are known.
//
// Errors (kInvalidInput) name the file, the byte offset of the offending packet and the reason.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "cprof_payload.pb.h"
#include "import/perfetto/track_event_importer.h"
#include "model/trace_builder.h"

namespace cprof {

class PayloadImporter {
 public:
  PayloadImporter(TraceBuilder* builder, TrackEventImporter* events, std::string path);

  // One cann_private_payload field, from the packet at byte `offset`.
  Status Add(std::string_view bytes, uint64_t offset);
  bool seen_header() const { return seen_header_; }
  // After the last packet and after events->Finish().
  Status Finish(uint64_t end_offset);

 private:
  Status Error(std::string_view reason) const;
  Status AddHeader(const pb::Header& h);
  Status AddStrings(const pb::StringChunk& c);
  Status AddTracks(const pb::TrackChunk& c);
  Status AddUuids(const pb::UuidChunk& c);
  Status AddFrames(const pb::FrameChunk& c);
  Status AddStacks(const pb::StackChunk& c);
  Status AddSamples(const pb::SampleChunk& c);
  Status AddMemoryEvents(const pb::MemoryEventChunk& c);
  Status AddFlows(const pb::FlowChunk& c);
  Status AddMetadata(const pb::MetadataChunk& c);
  Status AddImportStats(const pb::ImportStatChunk& c);
  // A payload string id (0 = empty) as a model StringId.
  StatusOr<StringId> Str(uint32_t id) const;
  StatusOr<TrackId> TrackRef(uint32_t ref) const;  // ref: row + 1, 0 = none

  TraceBuilder* b_;
  TrackEventImporter* events_;
  std::string path_;
  uint64_t offset_ = 0;
  pb::CprofPayload chunk_;
  bool seen_header_ = false, seen_trailer_ = false;
  pb::Header header_;

  std::vector<StringId> strings_{kEmptyString};
  std::string partial_;  // a string continued in the next chunk
  bool continuing_ = false;
  uint32_t track_base_ = 0;  // TrackId of payload track 0
  uint64_t tracks_ = 0;
  std::vector<FrameId> frames_;
  std::vector<StackId> stacks_;
  uint64_t samples_ = 0, memory_events_ = 0, metadata_ = 0;
  struct Flow {
    uint32_t out_ref, in_ref, kind;
    StringId name;
  };
  std::vector<Flow> flows_;
  ImportStats stats_;
};

}  // namespace cprof
