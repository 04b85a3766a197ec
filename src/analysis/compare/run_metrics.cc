// Per-step and per-run values of registry metrics, read from a trace.
#include "analysis/compare/run_metrics.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>

#include "analysis/gpu_timeline.h"
#include "stats/quantile.h"

namespace cprof {
namespace {

// What errors call the trace: its source path, or "the trace" (a native .pb has none).
std::string SourceName(const Trace& trace) {
  std::string s = trace.MetadataText(meta::kSourcePath);
  return s.empty() ? "the trace" : s;
}

bool IsDurationMetric(const std::string& n) {
  return n == "step_time" || n == "latency" || n == "p50_latency" || n == "p99_latency";
}

}  // namespace

bool IsStepMetric(std::string_view name) { return IsDurationMetric(std::string(name)) || name == "throughput"; }

namespace {

Status NeedSteps(const Trace& trace, const MetricInfo& metric, const std::vector<Step>& steps) {
  if (!steps.empty()) return Status::Ok();
  return InvalidInput("{}: no steps found (no ProfilerStep#N, step annotations or repeated top-level spans), so "
                      "'{}' has no values",
                      SourceName(trace), metric.name);
}

// Counter tracks holding `metric`: named after it or after the collector's series for it;
// process-level series (tid -1) are preferred over per-thread ones.
std::vector<TrackId> CounterTracks(const Trace& t, const std::string& metric) {
  std::vector<std::string> names = {metric};
  if (metric == "cpu_util") names.push_back("cpu.percent");
  if (metric == "mem" || metric == "mem_peak") names.push_back("rss.bytes");
  if (metric == "cache_miss") names.push_back("hw.cache_misses.per_s");
  std::vector<TrackId> process_level, any;
  for (uint32_t i = 0; i < t.tracks.size(); ++i) {
    if (t.tracks.kind[i] != TrackKind::kCounter) continue;
    const std::string_view n = t.Str(t.tracks.name_id[i]);
    if (std::find(names.begin(), names.end(), n) == names.end()) continue;
    (t.tracks.tid[i] < 0 ? process_level : any).push_back(TrackId{i});
  }
  return process_level.empty() ? any : process_level;
}

// Mean (or max) over each selected track's points in [start, end), summed over tracks
// (processes add up).
std::optional<double> CounterMean(const Trace& t, const std::vector<TrackId>& tracks, int64_t start, int64_t end,
                                  bool max = false) {
  double total = 0;
  bool any = false;
  for (TrackId track : tracks) {
    double sum = 0, peak = 0;
    int64_t n = 0;
    for (size_t i = 0; i < t.counters.size(); ++i) {
      if (t.counters.track_id[i] != track) continue;
      const int64_t ts = t.counters.ts_ns[i];
      if (ts < start || ts >= end) continue;
      sum += t.counters.value[i];
      peak = n == 0 ? t.counters.value[i] : std::max(peak, t.counters.value[i]);
      ++n;
    }
    if (n > 0) {
      total += max ? peak : sum / static_cast<double>(n);
      any = true;
    }
  }
  if (!any) return std::nullopt;
  return total;
}

// Allocator totals over time of one memory (a device, or the host): (ts, bytes allocated after
// the event), in time order.
using AllocatedSeries = std::vector<std::pair<int64_t, double>>;

// mem_peak's memory events: the device's when the trace has any (an accelerator's memory is what
// runs out, and the process's RSS does not hold it), one series per device; else the host
// allocator's, but only when the trace has no resident-memory counter: RSS holds the allocator's
// memory and everything else the process allocated (a 300 MiB bytearray beside a 10 MiB tensor
// is 10 MiB to the allocator). Empty: read mem_peak from the RSS counter.
std::vector<AllocatedSeries> PeakMemorySeries(const Trace& t, bool have_rss) {
  const auto& m = t.memory_events;
  const bool device = std::any_of(m.device.begin(), m.device.end(), [](int64_t d) { return d >= 0; });
  if (!device && (have_rss || m.size() == 0)) return {};
  std::vector<size_t> order;
  for (size_t i = 0; i < m.size(); ++i)
    if ((m.device[i] >= 0) == device) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return m.ts_ns[a] < m.ts_ns[b]; });
  std::map<int64_t, std::pair<AllocatedSeries, double>> by_device;  // series, running sum
  for (size_t i : order) {
    auto& [series, running] = by_device[m.device[i]];
    running += static_cast<double>(m.bytes[i]);
    const int64_t total = m.total_allocated[i];
    series.emplace_back(m.ts_ns[i], total >= 0 ? static_cast<double>(total) : running);
  }
  std::vector<AllocatedSeries> out;
  for (auto& [d, s] : by_device) out.push_back(std::move(s.first));
  return out;
}

// The most allocated in [start, end) on any one of `series`' memories, counting what each held
// when the interval began.
double PeakIn(const std::vector<AllocatedSeries>& series, int64_t start, int64_t end) {
  double peak = 0;
  for (const AllocatedSeries& s : series) {
    auto it = std::lower_bound(s.begin(), s.end(), start,
                               [](const std::pair<int64_t, double>& p, int64_t ts) { return p.first < ts; });
    if (it != s.begin()) peak = std::max(peak, std::prev(it)->second);
    for (; it != s.end() && it->first < end; ++it) peak = std::max(peak, it->second);
  }
  return peak;
}

}  // namespace

SampleStatistic StepStatistic(const MetricInfo& metric, TwoSampleTest test) {
  if (metric.name == "p50_latency") return SampleStatistic::Median();
  if (metric.name == "p99_latency") return SampleStatistic::Percentile(99);
  if (metric.name == "latency") return SampleStatistic::Mean();
  if (metric.name == "mem_peak" || metric.name == "throughput") return SampleStatistic::Median();
  return test == TwoSampleTest::kWelchT ? SampleStatistic::Mean() : SampleStatistic::Median();
}

StatusOr<std::vector<double>> StepValues(const Trace& trace, const std::vector<Step>& steps, const MetricInfo& metric,
                                         const RunMetricOptions& options) {
  RETURN_IF_ERROR(NeedSteps(trace, metric, steps));
  const std::string source = SourceName(trace);
  std::vector<double> v;
  v.reserve(steps.size());
  if (IsDurationMetric(metric.name)) {
    for (const Step& s : steps) v.push_back(static_cast<double>(s.dur_ns));
    return v;
  }
  if (metric.name == "throughput") {
    for (const Step& s : steps)
      if (s.dur_ns > 0) v.push_back(options.items_per_step * 1e9 / static_cast<double>(s.dur_ns));
    return v;
  }
  if (metric.name == "device_util" || metric.name == "compute_util") {
    const DeviceIntervals intervals = CollectDeviceIntervals(trace);
    if (intervals.empty()) return InvalidInput("{}: no device work (kernels, memcpy, NPU tasks), so '{}' has no values", source, metric.name);
    for (const StepGpuTimeline& st : ComputeGpuTimelinePerStep(intervals, steps)) {
      if (st.timeline.total_ns <= 0) continue;
      const int64_t part = metric.name == "device_util" ? st.timeline.busy_ns : st.timeline.computation_ns;
      v.push_back(100.0 * static_cast<double>(part) / static_cast<double>(st.timeline.total_ns));
    }
    return v;
  }
  const std::vector<TrackId> tracks = CounterTracks(trace, metric.name);
  if (metric.name == "mem_peak") {
    // The total when the step starts counts too: memory held from before is part of its peak.
    const std::vector<AllocatedSeries> series = PeakMemorySeries(trace, !tracks.empty());
    for (const Step& s : steps)
      if (!series.empty()) v.push_back(PeakIn(series, s.start_ns, s.end_ns()));
    if (!series.empty()) return v;
  }
  if (tracks.empty()) {
    return InvalidInput("{}: no counter track for '{}' in this trace (it is measured by `cann-profiler trace`, "
                        "source: {})",
                        source, metric.name, MetricSourceName(metric.source));
  }
  for (const Step& s : steps) {
    std::optional<double> m = CounterMean(trace, tracks, s.start_ns, s.end_ns(), metric.name == "mem_peak");
    if (m) v.push_back(*m);
  }
  if (v.empty()) return InvalidInput("{}: the '{}' counter has no points inside any step", source, metric.name);
  return v;
}

StatusOr<double> RunValue(const Trace& trace, const std::vector<Step>& steps, const MetricInfo& metric,
                          const RunMetricOptions& options) {
  const std::string source = SourceName(trace);
  if (IsStepMetric(metric.name)) {
    RETURN_IF_ERROR(NeedSteps(trace, metric, steps));
    std::vector<double> d;
    for (const Step& s : steps) d.push_back(static_cast<double>(s.dur_ns));
    const double total = std::accumulate(d.begin(), d.end(), 0.0);
    if (metric.name == "throughput") {
      if (total <= 0) return InvalidInput("{}: steps have no duration", source);
      return options.items_per_step * static_cast<double>(d.size()) * 1e9 / total;
    }
    if (metric.name == "p50_latency") return Quantile(d, 0.5);
    if (metric.name == "p99_latency") return Quantile(d, 0.99);
    return total / static_cast<double>(d.size());
  }
  if (metric.name == "device_util" || metric.name == "compute_util") {
    std::optional<GpuTimeline> tl = ComputeGpuTimeline(trace);
    if (!tl || tl->total_ns <= 0) return InvalidInput("{}: no device work (kernels, memcpy, NPU tasks), so '{}' has no value", source, metric.name);
    const int64_t part = metric.name == "device_util" ? tl->busy_ns : tl->computation_ns;
    return 100.0 * static_cast<double>(part) / static_cast<double>(tl->total_ns);
  }
  const std::vector<TrackId> tracks = CounterTracks(trace, metric.name);
  if (metric.name == "mem_peak") {
    const std::vector<AllocatedSeries> series = PeakMemorySeries(trace, !tracks.empty());
    if (!series.empty()) return PeakIn(series, INT64_MIN, INT64_MAX);
  }
  if (tracks.empty()) {
    return InvalidInput("{}: no counter track for '{}' in this trace (it is measured by `cann-profiler trace`, "
                        "source: {})",
                        source, metric.name, MetricSourceName(metric.source));
  }
  std::optional<double> m = CounterMean(trace, tracks, INT64_MIN, INT64_MAX, metric.name == "mem_peak");
  if (!m) return InvalidInput("{}: the '{}' counter has no points", source, metric.name);
  return *m;
}

}  // namespace cprof
