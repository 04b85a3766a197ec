// ProcSampler: process and system metrics from /proc at a fixed interval, as counter tracks.
//
// For the target and every descendant process (found by scanning /proc for parent links):
// per-thread CPU use (% of one core, from /proc/<pid>/task/<tid>/schedstat, ns precision),
// process CPU use (sum over threads), RSS, thread count, context switches per second, I/O read
// and write bytes per second, minor and major page faults per second. For the machine: CPU use (% of all cores) and used/available
// memory. Thread and process names come from their `comm`.
#pragma once

#include <sys/types.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "collect/source.h"

namespace cprof {

class ProcSampler : public Source {
 public:
  explicit ProcSampler(TimeNs interval_ns, std::string proc_root = "/proc");

  std::string_view name() const override { return "proc"; }
  Status Attach(const TargetProcess& target) override;
  void Poll(TimeNs now) override;
  TimeNs next_poll_ns() const override { return next_ns_; }
  void Stop(TimeNs now) override;
  void Emit(TraceBuilder& b, TimeNs from, TimeNs to) override;
  void Forget(TimeNs before) override;

  // Latest values, for triggers: process CPU % and RSS bytes summed over the target's processes.
  double last_cpu_percent() const { return last_cpu_percent_; }
  double last_rss_bytes() const { return last_rss_bytes_; }
  TimeNs last_sample_ns() const { return last_sample_ns_; }

  // One sample now (tests and the final drain call it directly).
  void SampleOnce(TimeNs now);

 private:
  // A counter series: (pid, tid) with tid -1 for process-level and pid -1 for system-level.
  struct SeriesKey {
    pid_t pid;
    pid_t tid;
    std::string name;
    bool operator<(const SeriesKey& o) const {
      return std::tie(pid, tid, name) < std::tie(o.pid, o.tid, o.name);
    }
  };
  struct Series {
    std::string unit;
    std::vector<std::pair<TimeNs, double>> points;
  };
  struct ThreadState {
    uint64_t cpu_ns = 0;
    uint64_t slices = 0;
    TimeNs ts = 0;
  };
  struct ProcessState {
    uint64_t read_bytes = 0, write_bytes = 0;
    TimeNs ts = 0;
    bool have_io = false;
    int64_t minor_faults = -1, major_faults = -1;  // totals at fault_ts, from /proc/<pid>/stat
    TimeNs fault_ts = 0;
  };

  void Add(pid_t pid, pid_t tid, const std::string& name, const char* unit, TimeNs ts, double v);
  void DiscoverProcesses();
  void SampleProcess(pid_t pid, TimeNs now, bool refresh_names, double* cpu, double* rss);
  void SampleSystem(TimeNs now);

  TimeNs interval_ns_;
  std::string proc_;
  pid_t root_pid_ = -1;
  TimeNs next_ns_ = 0;
  int polls_ = 0;
  std::set<pid_t> pids_;
  std::map<SeriesKey, Series> series_;
  std::map<std::pair<pid_t, pid_t>, ThreadState> threads_;
  std::map<pid_t, ProcessState> processes_;
  std::map<pid_t, std::string> process_names_;
  std::map<std::pair<pid_t, pid_t>, std::string> thread_names_;
  uint64_t sys_busy_ = 0, sys_total_ = 0;
  long page_size_ = 4096;
  double last_cpu_percent_ = 0, last_rss_bytes_ = 0;
  TimeNs last_sample_ns_ = 0;
};

}  // namespace cprof
