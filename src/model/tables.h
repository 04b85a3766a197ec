// The trace tables, each declared once with a line of documentation per column (see table.h).
// Times are int64 ns on the trace's own clock (for Kineto, ns since the Unix epoch when the
// trace says so). `_id` columns of StringId type index the trace's StringPool.
#pragma once

#include <cstdint>

#include "model/ids.h"
#include "model/table.h"
#include "model/track_kind.h"
#include "model/value.h"

namespace cprof {

inline constexpr int64_t kNoCorrelation = -1;
inline constexpr int64_t kUnknown = -1;

#define CPROF_TRACK_COLUMNS(X)                                                               \
  X(TrackId, parent_id, kNoTrack, "enclosing track: thread -> process, stream -> device")   \
  X(TrackKind, kind, TrackKind::kThread, "what the track is (TrackKind)")                  \
  X(StringId, name_id, kEmptyString, "display name")                                       \
  X(int64_t, pid, kUnknown, "process id, or -1")                                           \
  X(int64_t, tid, kUnknown, "thread id, or -1")                                            \
  X(int64_t, device, kUnknown, "accelerator index (GPU/NPU), or -1")                       \
  X(int64_t, stream, kUnknown, "stream / queue id on the device, or -1")                   \
  X(int64_t, rank, kUnknown, "distributed rank the track belongs to, or -1")               \
  X(int32_t, sort_index, 0, "display order hint among siblings (Chrome sort_index)")       \
  X(StringId, unit_id, kEmptyString, "counter tracks: unit of the values (bytes, %, ...)")
CPROF_TABLE(TrackTable, CPROF_TRACK_COLUMNS);

#define CPROF_SLICE_COLUMNS(X)                                                            \
  X(int64_t, ts_ns, 0, "start time, ns")                                                  \
  X(int64_t, dur_ns, 0, "duration, ns; -1 if the slice never ended")                      \
  X(TrackId, track_id, kNoTrack, "track the slice is on")                                 \
  X(StringId, name_id, kEmptyString, "name (operator, kernel, annotation, ...)")          \
  X(StringId, category_id, kEmptyString, "category as the source wrote it (cpu_op, ...)") \
  X(uint32_t, depth, 0, "nesting depth on its track, 0 = top level (set by Finalize)")   \
  X(SliceId, parent_id, kNoSlice, "enclosing slice on the same track (set by Finalize)") \
  X(ArgSetId, arg_set_id, kNoArgs, "key/value args, or kNoArgs")                          \
  X(int64_t, correlation_id, kNoCorrelation, "launch <-> kernel correlation, or -1")
CPROF_TABLE(SliceTable, CPROF_SLICE_COLUMNS);

enum class FlowKind : uint8_t {
  kOther,         // a flow the source did not type
  kLaunch,        // host runtime call -> device kernel/memcpy (Kineto ac2g)
  kFwdBwd,        // forward op -> its backward op
  kQueue,         // enqueue -> dequeue (torch_npu async_task_queue)
  kHostToDevice,  // host op -> device task (torch_npu async_npu)
};

#define CPROF_FLOW_COLUMNS(X)                                         \
  X(SliceId, out_slice_id, kNoSlice, "slice the flow leaves from")   \
  X(SliceId, in_slice_id, kNoSlice, "slice the flow arrives at")     \
  X(FlowKind, kind, FlowKind::kOther, "what the flow means")         \
  X(StringId, name_id, kEmptyString, "the flow's name or category in the source")
CPROF_TABLE(FlowTable, CPROF_FLOW_COLUMNS);

#define CPROF_COUNTER_COLUMNS(X)                          \
  X(TrackId, track_id, kNoTrack, "counter track")         \
  X(int64_t, ts_ns, 0, "time of the value, ns")           \
  X(double, value, 0.0, "value from this time on")
CPROF_TABLE(CounterTable, CPROF_COUNTER_COLUMNS);

#define CPROF_MEMORY_EVENT_COLUMNS(X)                                                 \
  X(int64_t, ts_ns, 0, "time of the allocation or free, ns")                         \
  X(TrackId, track_id, kNoTrack, "thread that allocated or freed")                   \
  X(int64_t, device, kUnknown, "device index; -1 = host memory")                     \
  X(uint64_t, address, 0, "address of the block")                                    \
  X(int64_t, bytes, 0, "size; negative = free")                                       \
  X(int64_t, total_allocated, kUnknown, "allocator's allocated bytes after, or -1")  \
  X(int64_t, total_reserved, kUnknown, "allocator's reserved bytes after, or -1")
CPROF_TABLE(MemoryEventTable, CPROF_MEMORY_EVENT_COLUMNS);

#define CPROF_SAMPLE_COLUMNS(X)                                      \
  X(int64_t, ts_ns, 0, "time of the sample, ns")                     \
  X(TrackId, track_id, kNoTrack, "thread track sampled")             \
  X(StackId, stack_id, kNoStack, "innermost frame's stack entry")   \
  X(int64_t, weight, 1, "weight (1 per sample, or ns of CPU time)")
CPROF_TABLE(SampleTable, CPROF_SAMPLE_COLUMNS);

#define CPROF_STACK_COLUMNS(X)                                          \
  X(StackId, parent_id, kNoStack, "caller's stack entry, or kNoStack") \
  X(FrameId, frame_id, kNoFrame, "frame at this level")
CPROF_TABLE(StackTable, CPROF_STACK_COLUMNS);

#define CPROF_FRAME_COLUMNS(X)                                     \
  X(StringId, function_id, kEmptyString, "function name")          \
  X(StringId, module_id, kEmptyString, "binary or Python module")  \
  X(uint64_t, address, 0, "instruction address (0 if unknown)")    \
  X(StringId, file_id, kEmptyString, "source file")                \
  X(int32_t, line, 0, "source line (0 if unknown)")
CPROF_TABLE(FrameTable, CPROF_FRAME_COLUMNS);

#define CPROF_METADATA_COLUMNS(X)                                           \
  X(StringId, key_id, kEmptyString, "key (source_format, rank, world_size, device_properties, ...)") \
  X(Value, value, Value(), "value; JSON objects are kept as a JSON string")
CPROF_TABLE(MetadataTable, CPROF_METADATA_COLUMNS);

}  // namespace cprof
