// The import stats table: every problem met while importing is counted under a named,
// documented stat instead of aborting or being dropped silently. `summary` shows the non-zero
// ones. Add a stat by adding one line to CPROF_IMPORT_STATS.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cprof {

enum class Severity : uint8_t { kInfo, kDataLoss, kError };
std::string_view SeverityName(Severity s);

// X(name, severity, description)
#define CPROF_IMPORT_STATS(X)                                                                   \
  X(json_unknown_phase, kDataLoss, "events with a 'ph' the importer does not know; skipped")    \
  X(json_missing_field, kDataLoss, "events lacking a field their phase needs (ts, ph, ...)")    \
  X(json_bad_field_type, kDataLoss, "events with a field of the wrong JSON type; skipped")      \
  X(json_ignored_phase, kInfo, "events of phases kept out of the model (O/N/D objects, ...)")   \
  X(json_unterminated_array, kInfo, "JSON array traces ending without ']' (allowed for crashed writers)") \
  X(unmatched_end, kDataLoss, "'E' events with no open 'B' on their thread; dropped")          \
  X(unclosed_begin, kInfo, "'B' events still open at the end; kept with dur -1")               \
  X(negative_duration, kDataLoss, "slices with a negative duration; dropped")                   \
  X(slice_improper_nesting, kInfo,                                                             \
    "slices that start inside another slice on their track but end after it")                  \
  X(flow_unmatched, kDataLoss, "flow ends with no matching start, or starts never ended")      \
  X(flow_unbound, kDataLoss, "flow events with no slice to bind to on their thread")           \
  X(flow_duplicate_id, kInfo, "flow ids reused while a flow with that id was still open")      \
  X(async_unmatched_end, kDataLoss, "async 'e' events with no open 'b' of the same id")        \
  X(counter_non_numeric, kDataLoss, "counter series values that are not numbers; skipped")     \
  X(memory_event_malformed, kDataLoss, "[memory] events missing Bytes or Addr; skipped")        \
  X(timestamp_out_of_range, kDataLoss, "timestamps that overflow int64 ns; event skipped")      \
  X(pb_unknown_packet, kInfo, "protobuf packets the reader does not use")                       \
  X(pb_unknown_track, kDataLoss, "protobuf events on a track that was never described")        \
  X(pb_unmatched_end, kDataLoss, "protobuf SLICE_END with no open SLICE_BEGIN on its track")  \
  X(pb_invalid_iid, kDataLoss, "protobuf events using an interned id their sequence never defined") \
  X(nsys_unknown_string, kDataLoss, "nsys events whose name id is not in StringIds; named '?'")  \
  X(nsys_missing_end, kDataLoss, "nsys events with no end timestamp; dropped")                   \
  X(nsys_bad_timestamp, kDataLoss, "nsys events whose start or end is not a number; dropped")   \
  X(nsys_unmatched_correlation, kInfo, "nsys GPU activities whose correlationId matches no API call") \
  X(profiler_file_missing, kInfo, "expected files absent from a profiler folder (metadata missing_files)") \
  X(profiler_file_unreadable, kError, "profiler files that could not be read (metadata import_problems)") \
  X(csv_bad_row, kDataLoss, "CSV rows with an unparsable cell; skipped (metadata import_problems)") \
  X(ascend_unknown_string, kDataLoss, "torch_npu .db values whose string id is not in STRING_IDS; named '?'") \
  X(ascend_kernel_unmatched, kInfo, "kernel_details.csv rows with no device task at their start and stream; added as slices") \
  X(ascend_comm_op_unmatched, kInfo, "communication.json ops with no HCCL slice of that name and start; added as slices") \
  X(ascend_step_trace_mismatch, kError, "step_trace_time.csv values that differ from the steps recomputed from the trace") \
  X(ascend_op_statistic_mismatch, kError, "op_statistic.csv op types whose count or total differs from the imported kernels")  \
  X(collect_perf_unavailable, kDataLoss, "CPU sampling could not start (perf_event_open refused: perf_event_paranoid, seccomp); no CPU samples") \
  X(collect_hw_counters_unavailable, kInfo, "hardware counters (cycles, instructions, cache misses) the PMU refused; not recorded") \
  X(collect_samples_lost, kDataLoss, "CPU samples the kernel dropped because the sampling ring buffer was full") \
  X(collect_unsymbolized_frames, kInfo, "sampled frames with no symbol (stripped binaries, JIT code); named module+offset") \
  X(collect_dwarf_unwind_failed, kInfo, "samples whose DWARF unwinding of the copied user stack stopped before the stack's root") \
  X(collect_runtime_malformed, kDataLoss, "malformed blocks in an in-process record file; the rest of that file skipped")

enum class ImportStat : uint16_t {
#define CPROF_STAT_ENUM(name, sev, desc) name,
  CPROF_IMPORT_STATS(CPROF_STAT_ENUM)
#undef CPROF_STAT_ENUM
      kCount
};

struct ImportStatInfo {
  std::string_view name;
  Severity severity;
  std::string_view description;
};

const ImportStatInfo& GetImportStatInfo(ImportStat stat);
std::optional<ImportStat> ImportStatFromName(std::string_view name);

class ImportStats {
 public:
  static constexpr size_t kCount = static_cast<size_t>(ImportStat::kCount);
  void Add(ImportStat stat, int64_t n = 1) { counts_[static_cast<size_t>(stat)] += n; }
  int64_t Get(ImportStat stat) const { return counts_[static_cast<size_t>(stat)]; }
  void Merge(const ImportStats& other) {
    for (size_t i = 0; i < kCount; ++i) counts_[i] += other.counts_[i];
  }
  // Non-zero stats of at least `min` severity.
  int64_t CountAtLeast(Severity min) const;

 private:
  std::array<int64_t, kCount> counts_{};
};

}  // namespace cprof
