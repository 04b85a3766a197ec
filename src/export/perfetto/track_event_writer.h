// Writes TrackEvent packets (slice begin/end, counter values) with interned names, categories,
// annotation keys and string values. Every interned string is sent once, in the packet that
// first uses it; such packets carry SEQ_NEEDS_INCREMENTAL_STATE. Interning ids are model
// StringIds (nonzero for every non-empty string), so no id map is needed.
//
//   TrackEventWriter w(trace, shift, &sink);
//   RETURN_IF_ERROR(w.Begin(row, uuid, flow_ids, terminating_ids));
//   RETURN_IF_ERROR(w.End(uuid, end_ts));
//
// Timestamps are model ns; packets carry ts + shift (as uint64, BOOTTIME by default).
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "base/status.h"
#include "export/perfetto/packet_sink.h"
#include "model/trace.h"

namespace cprof {

class TrackEventWriter {
 public:
  TrackEventWriter(const Trace& trace, uint64_t ts_shift, PacketSink* sink);

  // SLICE_BEGIN of slice `row`: name, category, args, correlation id, flows.
  Status Begin(uint32_t row, uint64_t uuid, std::span<const uint64_t> flow_ids,
               std::span<const uint64_t> terminating_flow_ids);
  // SLICE_END of slice `row` at ts + dur (no name: it closes the innermost open slice). The
  // sum is taken modulo 2^64, so the reader's END - BEGIN gives dur back exactly.
  Status End(uint32_t row, uint64_t uuid);
  Status Counter(uint64_t uuid, int64_t ts_ns, double value);

 private:
  perfetto::protos::TrackEvent* StartEvent(uint64_t packet_ts, uint64_t uuid);
  uint64_t PacketTs(int64_t ts_ns) const { return static_cast<uint64_t>(ts_ns) + ts_shift_; }
  Status BadString(uint32_t row, StringId id) const;
  // The iid for `id` in one interning table, adding it to the packet the first time.
  uint64_t InternName(StringId id);
  uint64_t InternCategory(StringId id);
  uint64_t InternKey(StringId id);
  uint64_t InternValue(StringId id);

  const Trace& trace_;
  uint64_t ts_shift_;
  PacketSink* sink_;
  perfetto::protos::TracePacket packet_;
  bool uses_interning_ = false;
  std::vector<bool> sent_names_, sent_categories_, sent_keys_, sent_values_;
};

}  // namespace cprof
