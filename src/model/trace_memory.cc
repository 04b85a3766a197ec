// Byte accounting of a Trace's tables, args and strings.
#include "model/trace_memory.h"

#include <string_view>

namespace cprof {
namespace {

#define CPROF_TRACE_MEMORY_COLUMN(type, name, def, doc) bytes += table.name.capacity() * sizeof(type);

// StringPool's index per string: a view, a 32-bit hash, and open-addressing slots kept under half
// full (so two to four 32-bit slots).
constexpr uint64_t kStringIndexBytes = sizeof(std::string_view) + sizeof(uint32_t) + 4 * sizeof(uint32_t);

}  // namespace

uint64_t TraceMemoryBytes(const Trace& trace) {
  uint64_t bytes = trace.strings.data_bytes() + trace.strings.size() * kStringIndexBytes;
  {
    const auto& table = trace.tracks;
    CPROF_TRACK_COLUMNS(CPROF_TRACE_MEMORY_COLUMN)
  }
  {
    const auto& table = trace.slices;
    CPROF_SLICE_COLUMNS(CPROF_TRACE_MEMORY_COLUMN)
  }
  {
    const auto& table = trace.flows;
    CPROF_FLOW_COLUMNS(CPROF_TRACE_MEMORY_COLUMN)
  }
  {
    const auto& table = trace.counters;
    CPROF_COUNTER_COLUMNS(CPROF_TRACE_MEMORY_COLUMN)
  }
  {
    const auto& table = trace.memory_events;
    CPROF_MEMORY_EVENT_COLUMNS(CPROF_TRACE_MEMORY_COLUMN)
  }
  {
    const auto& table = trace.samples;
    CPROF_SAMPLE_COLUMNS(CPROF_TRACE_MEMORY_COLUMN)
  }
  {
    const auto& table = trace.stacks;
    CPROF_STACK_COLUMNS(CPROF_TRACE_MEMORY_COLUMN)
  }
  {
    const auto& table = trace.frames;
    CPROF_FRAME_COLUMNS(CPROF_TRACE_MEMORY_COLUMN)
  }
  {
    const auto& table = trace.metadata;
    CPROF_METADATA_COLUMNS(CPROF_TRACE_MEMORY_COLUMN)
  }
  bytes += trace.args.key_id.capacity() * sizeof(StringId) + trace.args.value.capacity() * sizeof(Value) +
           trace.args.set_count() * sizeof(uint32_t);
  return bytes;
}

}  // namespace cprof
