// The Perfetto .pb export: file layout and the timestamp shift.
//
// File layout, one sequence (trusted_packet_sequence_id 1):
//   1. a packet that starts the sequence (first_packet_on_sequence, INCREMENTAL_STATE_CLEARED);
//   2. the private payload tables (payload_writer.h), ignored by Perfetto;
//   3. every TrackDescriptor;
//   4. slice and counter TrackEvents, track by track (track_events.h);
//   5. the payload trailer (marks the file complete for our reader).
#include "export/perfetto/perfetto_writer.h"

#include <limits>

#include "base/atomic_file.h"
#include "export/perfetto/packet_sink.h"
#include "export/perfetto/payload_writer.h"
#include "export/perfetto/track_descriptors.h"
#include "export/perfetto/track_event_writer.h"
#include "export/perfetto/track_events.h"
#include "export/perfetto/track_layout.h"
#include "proto/cprof_payload_format.h"

namespace cprof {
namespace {

// Packet timestamps are unsigned: shift everything up when the trace has negative times.
uint64_t TimestampShift(const Trace& trace) {
  int64_t lo = 0;
  for (int64_t ts : trace.slices.ts_ns) lo = std::min(lo, ts);
  for (int64_t ts : trace.counters.ts_ns) lo = std::min(lo, ts);
  return lo < 0 ? uint64_t{0} - static_cast<uint64_t>(lo) : 0;
}

Status CheckFinalized(const Trace& trace, const std::string& path) {
  const auto& begin = trace.track_slice_begin;
  if (begin.size() != trace.tracks.size() + 1 || begin.back() != trace.slices.size()) {
    return Internal("{}: the trace was not finalized (TraceBuilder::Finalize) before export", path);
  }
  return Status::Ok();
}

}  // namespace

Status WritePerfettoTrace(const Trace& trace, const std::string& path) {
  RETURN_IF_ERROR(CheckFinalized(trace, path));
  const uint64_t shift = TimestampShift(trace);
  const TrackLayout layout(trace);

  AtomicFile file(path);
  RETURN_IF_ERROR(file.Open());
  PacketSink sink(&file);

  perfetto::protos::TracePacket start;
  start.set_trusted_packet_sequence_id(pb::kSequenceId);
  start.set_first_packet_on_sequence(true);
  start.set_sequence_flags(perfetto::protos::TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
  RETURN_IF_ERROR(sink.Write(start));

  PayloadWriter payload(trace, layout, shift, &sink);
  RETURN_IF_ERROR(payload.WriteTables());
  RETURN_IF_ERROR(WriteTrackDescriptors(trace, layout, &sink));
  TrackEventWriter events(trace, shift, &sink);
  RETURN_IF_ERROR(WriteTrackEvents(trace, layout, &events));
  RETURN_IF_ERROR(payload.WriteTrailer());
  return file.Commit();
}

}  // namespace cprof
