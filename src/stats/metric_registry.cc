// The built-in metrics and the machine probe that decides which ones can be measured here.
#include "stats/metric_registry.h"

#include <linux/perf_event.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <fmt/format.h>

namespace cprof {
namespace {

struct MetricSeed {
  const char* name;
  const char* unit;
  MetricSource source;
  MetricDirection direction;
  const char* description;
};

constexpr MetricDirection kLower = MetricDirection::kLowerIsBetter;
constexpr MetricDirection kHigher = MetricDirection::kHigherIsBetter;

// One line per metric; keep sorted by name.
constexpr MetricSeed kSeeds[] = {
    {"cache_miss", "count", MetricSource::kPmu, kLower,
     "last-level cache misses (PERF_COUNT_HW_CACHE_MISSES)"},
    {"compute_util", "percent", MetricSource::kTrace, kHigher,
     "device computation time / device-active span (TraceLens computation_time / total_time)"},
    {"cpu_util", "percent", MetricSource::kProcfs, kHigher,
     "CPU time of the workload / wall time, from /proc/<pid>/stat"},
    {"device_util", "percent", MetricSource::kTrace, kHigher,
     "device busy time / device-active span (TraceLens busy_time / total_time)"},
    {"latency", "ns", MetricSource::kWorkload, kLower, "mean wall time of one request or run"},
    {"mem", "bytes", MetricSource::kProcfs, kLower, "resident memory of the workload (RSS)"},
    {"mem_bandwidth", "bytes/s", MetricSource::kPmu, kHigher,
     "memory bandwidth from hardware memory-controller counters"},
    {"mem_peak", "bytes", MetricSource::kProcfs, kLower,
     "peak device memory allocated (a trace's device memory events), else peak resident memory "
     "(RSS), else peak allocated from host memory events"},
    {"p50_latency", "ns", MetricSource::kWorkload, kLower, "median latency (linear interpolation)"},
    {"p99_latency", "ns", MetricSource::kWorkload, kLower,
     "99th percentile latency (linear interpolation)"},
    {"step_time", "ns", MetricSource::kTrace, kLower,
     "duration of one training/inference step (the step detector's steps)"},
    {"throughput", "items/s", MetricSource::kWorkload, kHigher,
     "items (samples, tokens, requests) processed per second"},
};

bool ProbeHardwareCounter(std::string* error) {
  perf_event_attr attr;
  std::memset(&attr, 0, sizeof(attr));
  attr.size = sizeof(attr);
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = PERF_COUNT_HW_CACHE_MISSES;
  attr.disabled = 1;
  attr.exclude_kernel = 1;
  attr.exclude_hv = 1;
  long fd = syscall(SYS_perf_event_open, &attr, 0, -1, -1, 0);
  if (fd < 0) {
    *error = fmt::format("perf_event_open(PERF_TYPE_HARDWARE) failed: {}", std::strerror(errno));
    return false;
  }
  close(static_cast<int>(fd));
  return true;
}

}  // namespace

std::string_view MetricSourceName(MetricSource s) {
  switch (s) {
    case MetricSource::kTrace: return "trace";
    case MetricSource::kWorkload: return "workload";
    case MetricSource::kProcfs: return "procfs";
    case MetricSource::kPmu: return "pmu";
  }
  return "?";
}

MachineCapabilities ProbeMachineCapabilities() {
  MachineCapabilities caps;
  caps.hardware_pmu = ProbeHardwareCounter(&caps.pmu_error);
  caps.procfs = std::ifstream("/proc/self/stat").good();
  return caps;
}

MetricRegistry::MetricRegistry(const MachineCapabilities& caps) {
  for (const MetricSeed& s : kSeeds) {
    MetricInfo m;
    m.name = s.name;
    m.unit = s.unit;
    m.source = s.source;
    m.direction = s.direction;
    m.description = s.description;
    if (s.source == MetricSource::kPmu && !caps.hardware_pmu) {
      m.available = false;
      m.unavailable_reason =
          caps.pmu_error.empty() ? "no hardware performance counters on this machine" : caps.pmu_error;
    } else if (s.source == MetricSource::kProcfs && !caps.procfs) {
      m.available = false;
      m.unavailable_reason = "/proc is not readable";
    }
    metrics_.push_back(std::move(m));
  }
  std::sort(metrics_.begin(), metrics_.end(),
            [](const MetricInfo& a, const MetricInfo& b) { return a.name < b.name; });
}

const MetricRegistry& MetricRegistry::Default() {
  static const MetricRegistry* registry = new MetricRegistry(ProbeMachineCapabilities());
  return *registry;
}

std::string MetricRegistry::AvailableNames() const {
  std::string out;
  for (const MetricInfo& m : metrics_) {
    if (!m.available) continue;
    if (!out.empty()) out += ", ";
    out += m.name;
  }
  return out;
}

StatusOr<const MetricInfo*> MetricRegistry::Find(std::string_view name) const {
  for (const MetricInfo& m : metrics_) {
    if (m.name != name) continue;
    if (!m.available) {
      return Unavailable("metric '{}' cannot be measured on this machine ({}); available: {}", name,
                         m.unavailable_reason, AvailableNames());
    }
    return &m;
  }
  return NotFound("unknown metric '{}'; available: {}", name, AvailableNames());
}

StatusOr<std::vector<const MetricInfo*>> MetricRegistry::FindAll(std::string_view list,
                                                                 bool include_unavailable) const {
  std::vector<const MetricInfo*> out;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string_view::npos) comma = list.size();
    std::string_view name = list.substr(pos, comma - pos);
    while (!name.empty() && name.front() == ' ') name.remove_prefix(1);
    while (!name.empty() && name.back() == ' ') name.remove_suffix(1);
    if (!name.empty()) {
      StatusOr<const MetricInfo*> m = Find(name);
      if (!m.ok() && include_unavailable && m.status().code() == StatusCode::kUnavailable) {
        for (const MetricInfo& known : metrics_)
          if (known.name == name) m = &known;
      }
      if (!m.ok()) return m.status();
      out.push_back(*m);
    }
    pos = comma + 1;
  }
  if (out.empty()) return InvalidInput("no metric named; available: {}", AvailableNames());
  return out;
}

}  // namespace cprof
