// Writes the private payload (src/proto/cprof_payload.proto): every part of the model that
// Perfetto has no field for, as columnar chunks of about 1 MiB, each in a packet of its own
// (TracePacket.cann_private_payload, which trace_processor and the UI skip unread).
//
//   PayloadWriter p(trace, layout, shift, &sink);
//   RETURN_IF_ERROR(p.WriteTables());   // before the descriptors and events
//   ... track descriptors, events ...
//   RETURN_IF_ERROR(p.WriteTrailer());  // last packet of the file
//
// Rows that point outside their target table are programmer errors (kInternal).
#pragma once

#include <cstdint>

#include "base/status.h"
#include "cprof_payload.pb.h"
#include "export/perfetto/packet_sink.h"
#include "export/perfetto/track_layout.h"
#include "model/trace.h"

namespace cprof {

class PayloadWriter {
 public:
  PayloadWriter(const Trace& trace, const TrackLayout& layout, uint64_t ts_shift, PacketSink* sink);

  // Header, strings, tracks, uuid map, frames, stacks, samples, memory events, flows,
  // metadata, import stats.
  Status WriteTables();
  Status WriteTrailer();

 private:
  Status Emit();  // sends chunk_ in a packet of its own, then clears it
  Status WriteHeader();
  Status WriteStrings();
  Status WriteTracks();
  Status WriteUuids();
  Status WriteFrames();
  Status WriteStacks();
  Status WriteSamples();
  Status WriteMemoryEvents();
  Status WriteFlows();
  Status WriteMetadata();
  Status WriteImportStats();

  const Trace& trace_;
  const TrackLayout& layout_;
  uint64_t ts_shift_;
  PacketSink* sink_;
  cprof::pb::CprofPayload chunk_;
  perfetto::protos::TracePacket packet_;
};

}  // namespace cprof
