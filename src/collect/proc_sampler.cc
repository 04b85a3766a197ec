// /proc sampling of the target's processes and threads and of the machine.
#include "collect/proc_sampler.h"

#include <unistd.h>

#include <algorithm>
#include <charconv>

#include "collect/proc_files.h"
#include "collect/target_process.h"

namespace cprof {
namespace {

// How often (in polls) descendants are searched for and names re-read: both cost a directory scan.
constexpr int kRescanEvery = 5;

bool ReadSchedstat(const std::string& path, uint64_t* cpu_ns, uint64_t* slices) {
  static thread_local std::string text;
  if (!ReadProcFile(path, &text)) return false;
  const char* p = text.data();
  const char* end = p + text.size();
  uint64_t wait = 0;
  auto r1 = std::from_chars(p, end, *cpu_ns);
  if (r1.ec != std::errc()) return false;
  auto r2 = std::from_chars(r1.ptr + 1, end, wait);
  if (r2.ec != std::errc()) return false;
  std::from_chars(r2.ptr + 1, end, *slices);
  return true;
}

}  // namespace

ProcSampler::ProcSampler(TimeNs interval_ns, std::string proc_root)
    : interval_ns_(interval_ns), proc_(std::move(proc_root)) {
  long ps = sysconf(_SC_PAGESIZE);
  if (ps > 0) page_size_ = ps;
}

Status ProcSampler::Attach(const TargetProcess& target) {
  root_pid_ = target.pid();
  pids_.insert(root_pid_);
  return Status::Ok();
}

void ProcSampler::Poll(TimeNs now) {
  if (now < next_ns_) return;
  next_ns_ = now + interval_ns_;
  SampleOnce(now);
}

void ProcSampler::Stop(TimeNs now) { SampleOnce(now); }

void ProcSampler::Add(pid_t pid, pid_t tid, const std::string& name, const char* unit, TimeNs ts,
                      double v) {
  Series& s = series_[SeriesKey{pid, tid, name}];
  if (s.unit.empty()) s.unit = unit;
  s.points.emplace_back(ts, v);
}

void ProcSampler::DiscoverProcesses() {
  // Children of any process already followed; repeated so grandchildren are found too.
  std::map<pid_t, pid_t> parent;
  ProcStat st;
  for (pid_t pid : ListNumericDir(proc_)) {
    if (ReadProcStat(proc_ + "/" + std::to_string(pid) + "/stat", &st)) {
      parent[pid] = static_cast<pid_t>(st.Field(4));
    }
  }
  bool grew = true;
  while (grew) {
    grew = false;
    for (const auto& [pid, ppid] : parent) {
      if (pids_.count(ppid) && !pids_.count(pid)) {
        pids_.insert(pid);
        grew = true;
      }
    }
  }
}

void ProcSampler::SampleOnce(TimeNs now) {
  if (root_pid_ <= 0) return;
  bool rescan = polls_++ % kRescanEvery == 0;
  if (rescan) DiscoverProcesses();
  double cpu_total = 0, rss_total = 0;
  for (auto it = pids_.begin(); it != pids_.end();) {
    pid_t pid = *it;
    if (access((proc_ + "/" + std::to_string(pid)).c_str(), F_OK) != 0) {
      it = pids_.erase(it);
      continue;
    }
    double cpu = 0, rss = 0;
    SampleProcess(pid, now, rescan, &cpu, &rss);
    cpu_total += cpu;
    rss_total += rss;
    ++it;
  }
  last_cpu_percent_ = cpu_total;
  last_rss_bytes_ = rss_total;
  last_sample_ns_ = now;
  SampleSystem(now);
}

void ProcSampler::SampleProcess(pid_t pid, TimeNs now, bool refresh_names, double* cpu_out,
                                double* rss_out) {
  const std::string dir = proc_ + "/" + std::to_string(pid);
  std::string text;
  // /proc/<pid>/stat, once a pass: the name (comm) and the page faults below.
  ProcStat st;
  const bool have_stat = ReadProcStat(dir + "/stat", &st);
  if (have_stat && (refresh_names || !process_names_.count(pid))) process_names_[pid] = st.comm;

  // Threads: CPU time and times scheduled (context switches) from schedstat.
  double cpu_percent = 0, switches_per_s = 0;
  int threads = 0;
  bool have_rate = false;
  for (pid_t tid : ListNumericDir(dir + "/task")) {
    const std::string tdir = dir + "/task/" + std::to_string(tid);
    uint64_t cpu_ns = 0, slices = 0;
    if (!ReadSchedstat(tdir + "/schedstat", &cpu_ns, &slices)) continue;
    ++threads;
    auto key = std::make_pair(pid, tid);
    if (refresh_names || !thread_names_.count(key)) {
      if (ProcStat tst; ReadProcStat(tdir + "/stat", &tst)) thread_names_[key] = tst.comm;
    }
    auto [it, fresh] = threads_.try_emplace(key);
    ThreadState& prev = it->second;
    if (!fresh && now > prev.ts) {
      double dt = static_cast<double>(now - prev.ts);
      double pct = 100.0 * static_cast<double>(cpu_ns - prev.cpu_ns) / dt;
      Add(pid, tid, "cpu.percent", "%", now, pct);
      cpu_percent += pct;
      switches_per_s += static_cast<double>(slices - prev.slices) * 1e9 / dt;
      have_rate = true;
    }
    prev = ThreadState{cpu_ns, slices, now};
  }
  if (have_rate) {
    Add(pid, -1, "cpu.percent", "%", now, cpu_percent);
    Add(pid, -1, "ctx_switches.per_s", "1/s", now, switches_per_s);
  }
  if (threads > 0) Add(pid, -1, "threads", "count", now, threads);
  *cpu_out = cpu_percent;

  // Page faults of the whole process (the kernel sums its threads): minflt (10), majflt (12).
  if (have_stat) {
    ProcessState& ps = processes_[pid];
    const int64_t minor = st.Field(10), major = st.Field(12);
    if (ps.minor_faults >= 0 && now > ps.fault_ts) {
      const double dt = static_cast<double>(now - ps.fault_ts) / 1e9;
      Add(pid, -1, "page_faults.minor.per_s", "1/s", now, static_cast<double>(minor - ps.minor_faults) / dt);
      Add(pid, -1, "page_faults.major.per_s", "1/s", now, static_cast<double>(major - ps.major_faults) / dt);
    }
    ps.minor_faults = minor;
    ps.major_faults = major;
    ps.fault_ts = now;
  }

  if (ReadProcFile(dir + "/statm", &text)) {
    // size resident shared ...: the second field, in pages.
    size_t sp = text.find(' ');
    int64_t pages = 0;
    if (sp != std::string::npos) std::from_chars(text.data() + sp + 1, text.data() + text.size(), pages);
    double rss = static_cast<double>(pages) * static_cast<double>(page_size_);
    Add(pid, -1, "rss.bytes", "bytes", now, rss);
    *rss_out = rss;
  }

  if (ReadProcFile(dir + "/io", &text)) {
    // rchar/wchar count every read()/write(), cached or not: what the workload asked for.
    int64_t r = ProcField(text, "rchar"), w = ProcField(text, "wchar");
    ProcessState& ps = processes_[pid];
    if (r >= 0 && w >= 0) {
      if (ps.have_io && now > ps.ts) {
        double dt = static_cast<double>(now - ps.ts) / 1e9;
        Add(pid, -1, "io.read.bytes_per_s", "bytes/s", now, static_cast<double>(r - static_cast<int64_t>(ps.read_bytes)) / dt);
        Add(pid, -1, "io.write.bytes_per_s", "bytes/s", now, static_cast<double>(w - static_cast<int64_t>(ps.write_bytes)) / dt);
      }
      ps.read_bytes = static_cast<uint64_t>(r);
      ps.write_bytes = static_cast<uint64_t>(w);
      ps.ts = now;
      ps.have_io = true;
    }
  }
}

void ProcSampler::SampleSystem(TimeNs now) {
  std::string text;
  if (ReadProcFile(proc_ + "/stat", &text)) {
    // cpu  user nice system idle iowait irq softirq steal guest guest_nice
    uint64_t v[10] = {};
    const char* p = text.data() + 3;
    const char* end = text.data() + text.find('\n');
    for (int i = 0; i < 10 && p < end; ++i) {
      while (p < end && *p == ' ') ++p;
      auto r = std::from_chars(p, end, v[i]);
      p = r.ptr;
    }
    uint64_t idle = v[3] + v[4];
    uint64_t total = v[0] + v[1] + v[2] + v[3] + v[4] + v[5] + v[6] + v[7];
    uint64_t busy = total - idle;
    if (sys_total_ != 0 && total > sys_total_) {
      Add(-1, -1, "system.cpu.percent", "%", now,
          100.0 * static_cast<double>(busy - sys_busy_) / static_cast<double>(total - sys_total_));
    }
    sys_busy_ = busy;
    sys_total_ = total;
  }
  if (ReadProcFile(proc_ + "/meminfo", &text)) {
    int64_t total = ProcField(text, "MemTotal"), avail = ProcField(text, "MemAvailable");
    if (total > 0 && avail >= 0) {
      Add(-1, -1, "system.mem.used.bytes", "bytes", now, static_cast<double>(total - avail) * 1024);
      Add(-1, -1, "system.mem.available.bytes", "bytes", now, static_cast<double>(avail) * 1024);
    }
  }
}

void ProcSampler::Emit(TraceBuilder& b, TimeNs from, TimeNs to) {
  for (const auto& [key, series] : series_) {
    TrackId parent = kNoTrack;
    if (key.tid >= 0) {
      parent = b.ThreadTrack(key.pid, key.tid);
    } else if (key.pid >= 0) {
      parent = b.ProcessTrack(key.pid);
    }
    TrackId track = kNoTrack;
    for (const auto& [ts, v] : series.points) {
      if (ts < from || ts > to) continue;
      if (track == kNoTrack) {
        track = b.ChildTrack(parent, TrackKind::kCounter, b.Intern(key.name));
        b.tracks().unit_id[Index(track)] = b.Intern(series.unit);
      }
      b.AddCounter(track, ts, v);
    }
  }
  // Names, for tracks that exist in this trace (the sampler or another source made them).
  for (const auto& [pid, name] : process_names_) {
    TrackId t = b.ProcessTrack(pid);
    if (b.tracks().name_id[Index(t)] == kEmptyString) b.tracks().name_id[Index(t)] = b.Intern(name);
  }
  for (const auto& [key, name] : thread_names_) {
    TrackId t = b.ThreadTrack(key.first, key.second);
    if (b.tracks().name_id[Index(t)] == kEmptyString) b.tracks().name_id[Index(t)] = b.Intern(name);
  }
}

void ProcSampler::Forget(TimeNs before) {
  for (auto& [key, series] : series_) {
    auto& p = series.points;
    auto it = std::find_if(p.begin(), p.end(), [&](const auto& x) { return x.first >= before; });
    p.erase(p.begin(), it);
  }
}

}  // namespace cprof
