// The Trace: every table of one imported or collected run, plus what Finalize() derives.
//
// Built by TraceBuilder (importers and the collector never fill tables directly), then read-only:
// analyses, exporters and reports take `const Trace&`. Slices are sorted by (track, ts, longer
// first), so one track's slices are the contiguous row range track_slices(track).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/string_pool.h"
#include "model/arg_table.h"
#include "model/import_stats.h"
#include "model/tables.h"

namespace cprof {

// Well-known metadata keys.
namespace meta {
inline constexpr std::string_view kSourceFormat = "source_format";  // "kineto", "chrome", ...
inline constexpr std::string_view kSourcePath = "source_path";
inline constexpr std::string_view kRank = "rank";
inline constexpr std::string_view kWorldSize = "world_size";
inline constexpr std::string_view kDeviceProperties = "device_properties";  // JSON text
inline constexpr std::string_view kDistributedInfo = "distributed_info";    // JSON text
inline constexpr std::string_view kBaseTimeNs = "base_time_ns";
inline constexpr std::string_view kCommandLine = "command_line";
inline constexpr std::string_view kTorchVersion = "torch_version";  // the traced program's torch.__version__
}  // namespace meta

struct Trace {
  StringPool strings;
  TrackTable tracks;
  SliceTable slices;
  FlowTable flows;
  CounterTable counters;
  MemoryEventTable memory_events;
  SampleTable samples;
  StackTable stacks;
  FrameTable frames;
  ArgTable args;
  MetadataTable metadata;
  ImportStats stats;

  // Derived by TraceBuilder::Finalize().
  std::vector<uint32_t> track_slice_begin;  // size tracks+1: slices of track t are [b[t], b[t+1])
  int64_t start_ns = 0;                     // earliest timestamp of any event
  int64_t end_ns = 0;                       // latest end of any event

  std::string_view Str(StringId id) const { return strings.Get(id); }
  std::pair<uint32_t, uint32_t> track_slices(TrackId t) const {
    return {track_slice_begin[Index(t)], track_slice_begin[Index(t) + 1]};
  }
  int64_t slice_end(uint32_t row) const { return slices.ts_ns[row] + std::max<int64_t>(0, slices.dur_ns[row]); }

  std::optional<Value> Metadata(std::string_view key) const;
  // The metadata value as text (strings as is, numbers formatted); empty if absent.
  std::string MetadataText(std::string_view key) const;
  // The value of arg `key` of a slice, if present.
  std::optional<Value> SliceArg(uint32_t row, std::string_view key) const;
  // "process 12 / thread 34" style path of names from the root to the track.
  std::string TrackPath(TrackId t) const;
  // Whether track `t` holds frames rebuilt from stack samples: `trace`'s "python (sampled)" child
  // of a thread (category python_function). Their spans are evidence of what ran, with the
  // sampling interval's precision, not traced events: step detection and span lookups skip them.
  bool HoldsSampledFrames(TrackId t) const;
};

}  // namespace cprof
