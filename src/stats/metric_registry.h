// The one metric registry: every metric a command can be asked for (`--metrics`, `--trigger`,
// `--threshold`, `--objective`, `validate --metrics`), with its unit, where its values come
// from, and whether this machine can measure it.
//
//   const MetricRegistry& reg = MetricRegistry::Default();
//   StatusOr<const MetricInfo*> m = reg.Find("p99_latency");   // ok
//   reg.Find("cache_mis");   // kNotFound: "unknown metric 'cache_mis'; available: cpu_util, ..."
//   reg.Find("cache_miss");  // kUnavailable on a machine without a hardware PMU, same list
//
// It lives in `stats` (not `analysis`) because its users sit on both sides of the module graph:
// `collect` (triggers) may link `stats` but not `analysis`, and `tune`, `analysis` and `cli` all
// link `stats`. The registry itself only describes metrics; computing them is the job of the
// module named in `source`.
//
// Thread-safe after construction; Default() probes the machine once, on first use.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace cprof {

// Where a metric's values come from; decides what the machine needs to measure it.
enum class MetricSource {
  kTrace,     // derived from a trace (slices, steps, device tracks, memory events): always available
  kWorkload,  // timed around the workload by the runner (wall clock, items processed): always
  kProcfs,    // sampled from /proc (CPU time, RSS): needs a readable /proc
  kPmu,       // a hardware performance counter (perf_event_open): needs a hardware PMU
};
std::string_view MetricSourceName(MetricSource s);

enum class MetricDirection { kLowerIsBetter, kHigherIsBetter };

struct MetricInfo {
  std::string name;         // what users type: "p99_latency"
  std::string unit;         // "ns", "percent", "bytes", "bytes/s", "items/s", "count"
  MetricSource source = MetricSource::kTrace;
  MetricDirection direction = MetricDirection::kLowerIsBetter;
  std::string description;  // one line
  bool available = true;    // whether this machine can measure it
  std::string unavailable_reason;  // why not, when !available
};

// What the machine offers; injectable so tests do not depend on the host.
struct MachineCapabilities {
  bool hardware_pmu = false;  // a PERF_TYPE_HARDWARE counter could be opened
  std::string pmu_error;      // why not ("perf_event_open: No such file or directory")
  bool procfs = false;        // /proc/self/stat is readable
};

// Probes the current machine: opens (and closes) one hardware cache-miss counter with
// perf_event_open for this thread, and reads /proc/self/stat.
MachineCapabilities ProbeMachineCapabilities();

class MetricRegistry {
 public:
  // The built-in metrics, with availability decided from `caps`.
  explicit MetricRegistry(const MachineCapabilities& caps);

  // The registry for this machine; probes once.
  static const MetricRegistry& Default();

  // The metric called `name`. kNotFound for an unknown name and kUnavailable for one this
  // machine cannot measure; both messages list the available metrics.
  StatusOr<const MetricInfo*> Find(std::string_view name) const;
  // Looks up a comma-separated list ("latency,cpu_util"); fails on the first bad name, and with
  // `include_unavailable` only on an unknown one (for `metrics`, which shows why it is not here).
  StatusOr<std::vector<const MetricInfo*>> FindAll(std::string_view comma_separated,
                                                   bool include_unavailable = false) const;

  const std::vector<MetricInfo>& all() const { return metrics_; }
  // Names of the available metrics, sorted, comma-separated.
  std::string AvailableNames() const;

 private:
  std::vector<MetricInfo> metrics_;
};

}  // namespace cprof
