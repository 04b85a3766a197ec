// What `trace` collects and how: the options the CLI fills from its flags.
#pragma once

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/time_units.h"
#include "model/trace.h"
#include "collect/source.h"
#include "collect/trigger.h"

namespace cprof {

// --scope: which layers are collected.
enum class CollectScope {
  kFullStack,     // everything below
  kFramework,     // in-process layers: PyTorch ops, Python shim, SDK spans (+ /proc)
  kHost,          // CPU samples and /proc, nothing loaded into the target
  kHardwareOnly,  // counters only: hardware/software perf counters and /proc
};
StatusOr<CollectScope> ParseCollectScope(std::string_view name);
std::string_view CollectScopeName(CollectScope s);

// 99 Hz, off the 100 Hz/1 kHz timer beats: each sample interrupts the sampled thread, ~45-50 us
// in this 2-core VM (bench/run_perf_sample_cost_bench.sh: 1.0% of a busy thread at 199 Hz).
inline constexpr double kDefaultCpuSamplingHz = 99;

// --sampling_rate: "N Hz" (CPU samples per second) or "P%" (share of framework events kept).
struct SamplingRate {
  double cpu_hz = kDefaultCpuSamplingHz;
  double event_fraction = 1.0;
};
StatusOr<SamplingRate> ParseSamplingRate(std::string_view text);

struct CollectOptions {
  std::vector<std::string> argv;  // the command to start, or empty with attach_pid
  pid_t attach_pid = 0;           // --pid: host-side collectors only
  CollectScope scope = CollectScope::kFullStack;
  SamplingRate sampling;
  TimeNs proc_interval_ns = 100 * kNsPerMs;
  // Hardware counters (cycles, instructions, cache misses): tried unless false; when
  // `require_hardware_counters` (the user named a PMU metric), failing to open them is an error.
  bool hardware_counters = true;
  bool require_hardware_counters = false;
  std::optional<TimeNs> duration_ns;  // --duration: stop collecting after this long
  TimeRange time_range;               // --time_range: keep only this window (from target start)
  // Folder holding libcprof_preload.so, libcprof_torch.so, libcprof.so and python/; empty:
  // found next to the running executable.
  std::string runtime_dir;
  WarningSink warn;  // messages for stderr (degraded collectors); may be empty

  // --trigger: with any, no trace of the whole run is made; each time a trigger fires, a trace
  // of [fire - window - trigger_pre_ns, fire + trigger_post_ns] goes to on_trigger_trace.
  std::vector<TriggerSpec> triggers;
  TimeNs trigger_pre_ns = 5 * kNsPerS;
  TimeNs trigger_post_ns = 3 * kNsPerS;
  std::function<Status(const Trace& trace, const TriggerFiring& firing, int index)> on_trigger_trace;
};

}  // namespace cprof
