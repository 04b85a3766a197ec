// What every rule reads: the trace, the options, and the shared analyses, each computed once on
// first use (steps, operator statistics, device intervals and breakdown), plus helpers to cite
// events in a way that survives re-import.
//
//   DiagnosisContext ctx(trace, options);
//   for (const Step& s : ctx.steps()) ...
//   const std::optional<GpuTimeline>& tl = ctx.device_timeline();   // nullopt: host-only trace
//   finding.events.push_back(ctx.EventRef(row, "longest gap"));
//
// Not thread-safe: the lazy caches are filled by whichever rule asks first. Rules run one after
// the other on one thread.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/device_work.h"
#include "analysis/diagnose/finding.h"
#include "analysis/gpu_timeline.h"
#include "analysis/op_stats.h"
#include "analysis/step_breakdown.h"
#include "analysis/step_detector.h"
#include "analysis/time_window.h"
#include "model/trace.h"

namespace cprof {

// The symptom the user asks about (`diagnose --problem`); rules weigh their findings by it.
enum class Problem { kNone, kHighP99Latency, kLowThroughput, kHighMemory };
std::string_view ProblemId(Problem p);                             // "high_p99_latency", ...
std::optional<Problem> ProblemFromId(std::string_view id);         // also accepts "none"

struct DiagnoseOptions {
  TimeWindow window;               // analyse only events that start inside it
  Problem problem = Problem::kNone;
  // `--threshold "p99>2.0s"`: steps/requests above it are "slow" for tail analysis.
  std::optional<int64_t> slow_threshold_ns;
  std::string threshold_text;      // as given, for the report
};

// "cpu" (host-only trace), "gpu" or "npu": the device the trace's device work ran on.
enum class DeviceKind { kCpu, kGpu, kNpu };
std::string_view DeviceKindId(DeviceKind k);

class DiagnosisContext {
 public:
  // Keeps references to both; they must outlive the context.
  DiagnosisContext(const Trace& trace, const DiagnoseOptions& options);
  ~DiagnosisContext();

  const Trace& trace() const { return trace_; }
  const DiagnoseOptions& options() const { return options_; }
  const TimeWindow& window() const { return options_.window; }

  // The analysed span: the trace's span clipped to the window, in ns (at least 1).
  int64_t span_start_ns() const;
  int64_t span_end_ns() const;
  int64_t span_ns() const { return std::max<int64_t>(1, span_end_ns() - span_start_ns()); }

  // Steps that start inside the window (step_detector.h); empty when the trace has none.
  const std::vector<Step>& steps() const;
  // Host and device operator statistics inside the window (op_stats.h).
  const OpStatsTable& op_stats() const;
  // Device work inside the window, classified and unioned (gpu_timeline.h), and its breakdown.
  const DeviceIntervals& device_intervals() const;
  const std::optional<GpuTimeline>& device_timeline() const;
  // Per step, when there are steps and device work.
  const std::vector<StepGpuTimeline>& device_timeline_per_step() const;
  const DeviceWorkClassifier& device_work() const;
  DeviceKind device_kind() const;

  // Per-step breakdown of wall time (step_breakdown.h), one per steps() entry.
  const std::vector<StepBreakdown>& step_breakdown() const;
  // Device work slices (device_work.h says which) starting inside the window, sorted by start
  // (all devices and streams together).
  const std::vector<uint32_t>& device_rows() const;
  // Host operator slices starting inside the window, by the rule of op_stats.h (category cpu_op
  // when the trace has it, else every host thread slice; ProfilerStep#N left out), grouped by
  // track and sorted by start within a track.
  const std::vector<uint32_t>& host_op_rows() const;
  // Self time of every slice (duration minus its direct children's, never below 0), by row.
  const std::vector<int64_t>& self_ns() const;
  // The thread the steps run on (the first step's track), else the host thread with the most
  // top-level time; nullopt when there is no host thread.
  std::optional<TrackId> main_thread() const;
  // Steps, or when the trace has none one pseudo-step spanning the analysed span (id -1), so
  // per-step rules also work on a trace without step markers.
  const std::vector<Step>& steps_or_span() const;

  // Order-independent hash of the trace's content (slice names, start offsets from the trace
  // start and durations), the same after convert/re-import; cited with every finding's events.
  uint64_t content_hash() const;

  // An evidence reference to slice `row`.
  EvidenceEvent EventRef(uint32_t row, std::string note = {}) const;
  // Whether slice `row` starts inside the window.
  bool InWindow(uint32_t row) const { return window().Contains(trace_.slices.ts_ns[row]); }

 private:
  const Trace& trace_;
  const DiagnoseOptions& options_;
  mutable std::optional<std::vector<Step>> steps_;
  mutable std::optional<OpStatsTable> op_stats_;
  mutable std::optional<DeviceIntervals> device_intervals_;
  mutable std::optional<std::optional<GpuTimeline>> device_timeline_;
  mutable std::optional<std::vector<StepGpuTimeline>> device_timeline_per_step_;
  mutable std::unique_ptr<DeviceWorkClassifier> device_work_;
  mutable std::optional<uint64_t> content_hash_;
  mutable std::optional<std::vector<StepBreakdown>> step_breakdown_;
  mutable std::optional<std::vector<uint32_t>> device_rows_;
  mutable std::optional<std::vector<uint32_t>> host_op_rows_;
  mutable std::optional<std::vector<int64_t>> self_ns_;
  mutable std::optional<std::optional<TrackId>> main_thread_;
  mutable std::optional<std::vector<Step>> steps_or_span_;
};

}  // namespace cprof
