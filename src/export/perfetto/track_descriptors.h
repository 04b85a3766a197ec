// Writes one TrackDescriptor packet per Perfetto track of a TrackLayout, before any event:
// host processes and threads as process/thread descriptors (pid, tid), everything else (devices,
// streams, communication, async, analysis, cpu cores, overlap lanes) as named tracks nested with
// parent_uuid, counter tracks with a CounterDescriptor.
#pragma once

#include "base/status.h"
#include "export/perfetto/packet_sink.h"
#include "export/perfetto/track_layout.h"
#include "model/trace.h"

namespace cprof {

Status WriteTrackDescriptors(const Trace& trace, const TrackLayout& layout, PacketSink* sink);

}  // namespace cprof
