// Writes every slice and counter value as TrackEvents, track by track in table order, so the
// k-th SLICE_BEGIN of the file is slice row k (our reader relies on this to rebuild slice ids
// and flows). On each track (lane), events come in time order with Perfetto's tie rules: the
// END of an earlier slice before the BEGIN of the next, parents begin first and end last.
// Flows go on the BEGIN events: flow_ids on the endpoint trace_processor parses first,
// terminating_flow_ids on the other.
#pragma once

#include "base/status.h"
#include "export/perfetto/track_event_writer.h"
#include "export/perfetto/track_layout.h"
#include "model/trace.h"

namespace cprof {

Status WriteTrackEvents(const Trace& trace, const TrackLayout& layout, TrackEventWriter* writer);

}  // namespace cprof
