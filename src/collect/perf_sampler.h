// PerfSampler: CPU samples with user call stacks, and hardware counters, from perf_event_open.
//
// Sampling: the software cpu-clock event at the chosen rate, one event per CPU bound to the
// target and inherited by every thread and child process it creates (also after `trace`
// started), with the kernel's frame-pointer call chain and, for DWARF unwinding where frame
// pointers are missing, a copy of the user stack and registers. Samples are unwound and
// symbolized (elfutils libdwfl) as they arrive, while the process's mappings are known, and
// kept as interned stacks. Hardware counters (cycles, instructions, cache misses) are counted
// per CPU when the PMU allows; when it does not, that is said once and counted in the stats.
#pragma once

#include <sys/types.h>

#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "base/string_pool.h"
#include "collect/collect_options.h"
#include "collect/perf_ring.h"
#include "collect/process_symbols.h"
#include "collect/source.h"

namespace cprof {

// The sampling event every target thread gets: cpu-clock at `hz`, IP, time (CLOCK_MONOTONIC),
// the frame-pointer chain and, with `dwarf_unwind`, registers and `stack_bytes` of user stack;
// inherited, disabled until enabled. Also used by bench/perf_sample_cost to price one sample.
perf_event_attr CpuSamplingAttr(double hz, bool dwarf_unwind, uint32_t stack_bytes);

class PerfSampler : public Source {
 public:
  struct Options {
    double cpu_sampling_hz = kDefaultCpuSamplingHz;  // 0: no sampling (counters only)
    bool hardware_counters = true;
    bool require_hardware_counters = false;  // failing to open them is then an error
    bool dwarf_unwind = true;
    uint32_t stack_bytes = 16384;  // user stack copied per sample for DWARF unwinding
    WarningSink warn;
  };

  explicit PerfSampler(Options options);
  ~PerfSampler() override;

  std::string_view name() const override { return "perf"; }
  Status Attach(const TargetProcess& target) override;
  void Poll(TimeNs now) override;
  TimeNs next_poll_ns() const override;
  void Stop(TimeNs now) override;
  void Emit(TraceBuilder& b, TimeNs from, TimeNs to) override;
  void Forget(TimeNs before) override;

  size_t sample_count() const { return samples_.size(); }

 private:
  struct Sample {
    int64_t ts;
    int32_t pid, tid;
    uint32_t stack;  // local stack id (+1; 0 = empty)
  };
  struct LocalFrame {
    StringId function, module;
    uint64_t address;
  };
  struct Counter {
    const char* name;
    uint64_t config;
    std::vector<PerfRing> per_cpu;
    double last_total = 0;
    TimeNs last_ts = 0;
    std::vector<std::pair<TimeNs, double>> points;  // per-second rates
  };

  Status OpenSampling(pid_t task, bool enable_on_exec);
  void OpenCounters(pid_t task, bool enable_on_exec);
  void Drain();
  TimeNs DrainIntervalNs() const;
  void HandleRecord(const perf_event_header* h);
  void HandleSample(const uint8_t* p, const uint8_t* end);
  ProcessSymbols& Symbols(pid_t pid);
  uint32_t InternStack(pid_t pid, const std::vector<uint64_t>& pcs, bool from_dwarf);
  void ReadCounters(TimeNs now);
  void Warn(const std::string& m) const;

  Options o_;
  pid_t target_ = -1;
  bool spawned_ = false;
  int ncpu_ = 1;
  std::vector<PerfRing> rings_;     // one sampling ring per CPU (attach: per thread, redirected)
  std::vector<Counter> counters_;
  bool counters_failed_ = false;
  bool sampling_failed_ = false;
  TimeNs next_counter_ns_ = 0;
  TimeNs next_drain_ns_ = 0;

  // Records of one drain, ordered by time before they are handled (MMAP before its samples).
  std::vector<std::pair<int64_t, std::vector<uint8_t>>> batch_;

  std::unordered_map<pid_t, std::unique_ptr<ProcessSymbols>> symbols_;
  std::map<std::pair<pid_t, pid_t>, std::string> thread_names_;
  StringPool strings_;
  std::vector<LocalFrame> frames_;
  std::map<std::pair<StringId, StringId>, uint32_t> frame_ids_;   // (function, module)
  std::vector<std::pair<uint32_t, uint32_t>> stacks_;             // (parent+1, frame)
  std::map<std::pair<uint32_t, uint32_t>, uint32_t> stack_ids_;
  std::vector<Sample> samples_;
  std::vector<uint64_t> pcs_;
  int64_t lost_ = 0, unsymbolized_ = 0, dwarf_failed_ = 0;
  uint64_t sample_type_ = 0;
};

}  // namespace cprof
