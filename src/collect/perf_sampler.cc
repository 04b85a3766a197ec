// CPU sampling and hardware counters through perf_event_open.
#include "collect/perf_sampler.h"

#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <functional>

#include <fmt/format.h>

#include "collect/proc_files.h"
#include "collect/target_process.h"

namespace cprof {
namespace {

constexpr size_t kSampleRingPages = 256;  // 1 MiB per CPU: ~60 samples with 16 KiB stacks
constexpr size_t kNoStackRingPages = 64;
constexpr TimeNs kCounterIntervalNs = 100 * kNsPerMs;
constexpr uint64_t kMaxCallchain = 512;

int ParanoidLevel() {
  std::string text;
  if (!ReadProcFile("/proc/sys/kernel/perf_event_paranoid", &text)) return -99;
  return std::atoi(text.c_str());
}

std::string PermissionHint(int err) {
  if (err != EACCES && err != EPERM) return {};
  return fmt::format(" (kernel.perf_event_paranoid={}; allow with `sysctl kernel.perf_event_paranoid=2` "
                     "or run with CAP_PERFMON)",
                     ParanoidLevel());
}

template <typename T>
T Read(const uint8_t*& p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  p += sizeof(T);
  return v;
}

}  // namespace

PerfSampler::PerfSampler(Options options) : o_(std::move(options)) {
  long n = sysconf(_SC_NPROCESSORS_CONF);
  ncpu_ = n > 0 ? static_cast<int>(n) : 1;
}

PerfSampler::~PerfSampler() = default;

void PerfSampler::Warn(const std::string& m) const {
  if (o_.warn) o_.warn(m);
}

perf_event_attr CpuSamplingAttr(double hz, bool dwarf_unwind, uint32_t stack_bytes) {
  perf_event_attr a{};
  a.size = sizeof(a);
  a.type = PERF_TYPE_SOFTWARE;
  a.config = PERF_COUNT_SW_CPU_CLOCK;
  a.sample_period = static_cast<uint64_t>(1e9 / hz);  // cpu-clock counts ns
  a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_CPU |
                  PERF_SAMPLE_PERIOD | PERF_SAMPLE_CALLCHAIN;
  if (dwarf_unwind) {
    a.sample_type |= PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER;
    a.sample_regs_user = UnwindRegisterMask();
    a.sample_stack_user = stack_bytes;
  }
  a.disabled = 1;
  a.inherit = 1;
  a.exclude_kernel = 1;
  a.exclude_hv = 1;
  a.exclude_callchain_kernel = 1;
  a.mmap = 1;
  a.comm = 1;
  a.task = 1;
  a.sample_id_all = 1;
  a.use_clockid = 1;
  a.clockid = CLOCK_MONOTONIC;
  return a;
}

Status PerfSampler::OpenSampling(pid_t task, bool enable_on_exec) {
  perf_event_attr a = CpuSamplingAttr(o_.cpu_sampling_hz, o_.dwarf_unwind, o_.stack_bytes);
  a.enable_on_exec = enable_on_exec ? 1 : 0;
  sample_type_ = a.sample_type;
  const size_t base = rings_.size();
  for (int cpu = 0; cpu < ncpu_; ++cpu) {
    StatusOr<PerfRing> r = PerfRing::Open(a, task, cpu);
    if (!r.ok()) {
      if (errno == ENODEV || errno == EINVAL) continue;  // an offline CPU
      return Unavailable("CPU sampling off: {}{}", r.status().message(), PermissionHint(errno));
    }
    if (base == 0 || rings_.size() < static_cast<size_t>(ncpu_)) {
      RETURN_IF_ERROR(r->Map(o_.dwarf_unwind ? kSampleRingPages : kNoStackRingPages));
    } else {
      // Attach: further threads share the first thread's ring of the same CPU.
      RETURN_IF_ERROR(r->RedirectTo(rings_[static_cast<size_t>(cpu) % ncpu_]));
    }
    rings_.push_back(std::move(*r));
  }
  if (!enable_on_exec) {
    for (size_t i = base; i < rings_.size(); ++i) rings_[i].Enable();
  }
  return Status::Ok();
}

void PerfSampler::OpenCounters(pid_t task, bool enable_on_exec) {
  if (counters_failed_) return;
  if (counters_.empty()) {
    counters_.push_back({"hw.cycles.per_s", PERF_COUNT_HW_CPU_CYCLES, {}, 0, 0, {}});
    counters_.push_back({"hw.instructions.per_s", PERF_COUNT_HW_INSTRUCTIONS, {}, 0, 0, {}});
    counters_.push_back({"hw.cache_misses.per_s", PERF_COUNT_HW_CACHE_MISSES, {}, 0, 0, {}});
  }
  for (Counter& c : counters_) {
    perf_event_attr a{};
    a.size = sizeof(a);
    a.type = PERF_TYPE_HARDWARE;
    a.config = c.config;
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    a.disabled = 1;
    a.enable_on_exec = enable_on_exec ? 1 : 0;
    a.inherit = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    for (int cpu = 0; cpu < ncpu_; ++cpu) {
      StatusOr<PerfRing> r = PerfRing::Open(a, task, cpu);
      if (!r.ok()) {
        int err = errno;
        counters_failed_ = true;
        counters_.clear();
        std::string why = err == ENOENT || err == EOPNOTSUPP || err == ENODEV
                              ? "this machine has no hardware PMU (a VM without PMU passthrough?)"
                              : r.status().message() + PermissionHint(err);
        Warn(fmt::format("hardware counters (cycles, instructions, cache misses) unavailable: {}", why));
        return;
      }
      if (!enable_on_exec) r->Enable();
      c.per_cpu.push_back(std::move(*r));
    }
  }
}

Status PerfSampler::Attach(const TargetProcess& target) {
  target_ = target.pid();
  spawned_ = target.spawned();
  std::vector<pid_t> tasks;
  if (spawned_) {
    tasks.push_back(target_);
  } else {
    tasks = ListNumericDir("/proc/" + std::to_string(target_) + "/task");
    Symbols(target_).LoadProcMaps();
  }
  if (o_.cpu_sampling_hz > 0) {
    for (pid_t t : tasks) {
      Status st = OpenSampling(t, spawned_);
      if (!st.ok()) {
        sampling_failed_ = true;
        rings_.clear();
        Warn(st.message());
        break;
      }
    }
  }
  if (o_.hardware_counters || o_.require_hardware_counters) {
    for (pid_t t : tasks) OpenCounters(t, spawned_);
    if (counters_failed_ && o_.require_hardware_counters) {
      return Unavailable("hardware counters were asked for (--metrics) but cannot be opened here");
    }
  }
  return Status::Ok();  // even with nothing open: Emit() reports what could not be collected
}

ProcessSymbols& PerfSampler::Symbols(pid_t pid) {
  auto& p = symbols_[pid];
  if (!p) p = std::make_unique<ProcessSymbols>(pid);
  return *p;
}

// How often the rings are drained: a quarter of the time a CPU's ring takes to fill at the
// sampling rate (a CPU takes at most cpu_sampling_hz samples a second, whatever the number of
// threads on it), between 5 and 100 ms. 1 MiB rings with 16 KiB stacks: ~80 ms at 199 Hz, the 100 ms
// cap at the default 99 Hz.
TimeNs PerfSampler::DrainIntervalNs() const {
  if (o_.cpu_sampling_hz <= 0 || rings_.empty()) return 100 * kNsPerMs;
  const double ring_bytes = static_cast<double>(rings_.front().data_bytes());
  const double sample_bytes = 1024.0 + (o_.dwarf_unwind ? o_.stack_bytes : 0) + 8.0 * 64;  // header, regs, chain
  const double fill_ns = ring_bytes / sample_bytes / o_.cpu_sampling_hz * 1e9;
  return std::clamp(static_cast<TimeNs>(fill_ns / 4), 5 * kNsPerMs, 100 * kNsPerMs);
}

TimeNs PerfSampler::next_poll_ns() const {
  TimeNs next = rings_.empty() ? INT64_MAX : next_drain_ns_;
  if (!counters_.empty()) next = std::min(next, next_counter_ns_);
  return next;
}

void PerfSampler::Poll(TimeNs now) {
  if (now >= next_drain_ns_) {
    next_drain_ns_ = now + DrainIntervalNs();
    Drain();
  }
  if (!counters_.empty() && now >= next_counter_ns_) {
    next_counter_ns_ = now + kCounterIntervalNs;
    ReadCounters(now);
  }
}

void PerfSampler::Stop(TimeNs now) {
  for (const PerfRing& r : rings_) r.Disable();
  Drain();
  if (!counters_.empty()) ReadCounters(now);
}

void PerfSampler::ReadCounters(TimeNs now) {
  for (Counter& c : counters_) {
    double total = 0;
    for (const PerfRing& r : c.per_cpu) {
      double v = 0;
      if (r.ReadCount(&v)) total += v;
    }
    if (c.last_ts != 0 && now > c.last_ts) {
      c.points.emplace_back(now, (total - c.last_total) * 1e9 / static_cast<double>(now - c.last_ts));
    }
    c.last_total = total;
    c.last_ts = now;
  }
}

void PerfSampler::Drain() {
  batch_.clear();
  for (PerfRing& r : rings_) {
    r.Drain([&](const perf_event_header* h) {
      const uint8_t* p = reinterpret_cast<const uint8_t*>(h);
      int64_t ts = 0;
      if (h->type == PERF_RECORD_SAMPLE) {
        // IP, then TID, then TIME.
        std::memcpy(&ts, p + sizeof(*h) + 16, sizeof(ts));
      } else if (h->size >= sizeof(*h) + 24) {
        // sample_id_all trailer: {pid, tid}, time, {cpu, res}.
        std::memcpy(&ts, p + h->size - 16, sizeof(ts));
      }
      batch_.emplace_back(ts, std::vector<uint8_t>(p, p + h->size));
    });
  }
  std::stable_sort(batch_.begin(), batch_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (const auto& [ts, bytes] : batch_) HandleRecord(reinterpret_cast<const perf_event_header*>(bytes.data()));
  batch_.clear();
}

void PerfSampler::HandleRecord(const perf_event_header* h) {
  const uint8_t* p = reinterpret_cast<const uint8_t*>(h) + sizeof(*h);
  const uint8_t* end = reinterpret_cast<const uint8_t*>(h) + h->size;
  switch (h->type) {
    case PERF_RECORD_SAMPLE:
      HandleSample(p, end);
      break;
    case PERF_RECORD_MMAP: {
      Mapping m;
      auto pid = Read<uint32_t>(p);
      Read<uint32_t>(p);  // tid
      m.start = Read<uint64_t>(p);
      m.end = m.start + Read<uint64_t>(p);
      m.pgoff = Read<uint64_t>(p);
      m.path = reinterpret_cast<const char*>(p);
      Symbols(static_cast<pid_t>(pid)).AddMapping(m);
      break;
    }
    case PERF_RECORD_COMM: {
      auto pid = Read<uint32_t>(p);
      auto tid = Read<uint32_t>(p);
      if (h->misc & PERF_RECORD_MISC_COMM_EXEC) Symbols(static_cast<pid_t>(pid)).Reset();
      thread_names_[{static_cast<pid_t>(pid), static_cast<pid_t>(tid)}] = reinterpret_cast<const char*>(p);
      break;
    }
    case PERF_RECORD_FORK: {
      auto pid = Read<uint32_t>(p);
      auto ppid = Read<uint32_t>(p);
      if (pid != ppid) {
        auto parent = symbols_.find(static_cast<pid_t>(ppid));
        ProcessSymbols& child = Symbols(static_cast<pid_t>(pid));
        if (parent != symbols_.end()) child.CopyMappingsFrom(*parent->second);
      }
      break;
    }
    case PERF_RECORD_LOST: {
      Read<uint64_t>(p);  // id
      lost_ += static_cast<int64_t>(Read<uint64_t>(p));
      break;
    }
    default:
      break;
  }
  (void)end;
}

void PerfSampler::HandleSample(const uint8_t* p, const uint8_t* end) {
  uint64_t ip = Read<uint64_t>(p);
  auto pid = static_cast<pid_t>(Read<uint32_t>(p));
  auto tid = static_cast<pid_t>(Read<uint32_t>(p));
  auto ts = static_cast<int64_t>(Read<uint64_t>(p));
  Read<uint64_t>(p);  // cpu, res
  Read<uint64_t>(p);  // period
  uint64_t nr = Read<uint64_t>(p);
  if (nr > kMaxCallchain || p + nr * 8 > end) return;
  const uint8_t* chain = p;
  p += nr * 8;
  std::vector<uint64_t> fp;
  for (uint64_t i = 0; i < nr; ++i) {
    uint64_t a;
    std::memcpy(&a, chain + i * 8, 8);
    if (a >= static_cast<uint64_t>(-4095)) continue;  // PERF_CONTEXT_* markers
    fp.push_back(a);
  }
  if (fp.empty()) fp.push_back(ip);

  bool dwarf_ok = false;
  if (sample_type_ & PERF_SAMPLE_REGS_USER) {
    uint64_t abi = Read<uint64_t>(p);
    uint64_t regs[kUnwindRegisterCount] = {};
    if (abi != 0) {
      for (int i = 0; i < kUnwindRegisterCount; ++i) regs[i] = Read<uint64_t>(p);
    }
    uint64_t size = Read<uint64_t>(p);
    const uint8_t* stack = p;
    uint64_t dyn = 0;
    if (size > 0 && p + size + 8 <= end) {
      p += size;
      dyn = Read<uint64_t>(p);
    }
    if (abi != 0 && dyn > 0) {
      dwarf_ok = Symbols(pid).Unwind(tid, regs, stack, std::min(size, dyn), &pcs_);
      if (!dwarf_ok) ++dwarf_failed_;
    }
  }
  // DWARF when it worked: without frame pointers the kernel's chain is garbage, often a long one.
  uint32_t stack = dwarf_ok ? InternStack(pid, pcs_, true) : InternStack(pid, fp, false);
  samples_.push_back({ts, pid, tid, stack});
}

uint32_t PerfSampler::InternStack(pid_t pid, const std::vector<uint64_t>& pcs, bool from_dwarf) {
  ProcessSymbols& syms = Symbols(pid);
  uint32_t parent = 0;
  // Outermost frame first: pcs are innermost first.
  for (size_t i = pcs.size(); i-- > 0;) {
    const SymbolizedFrame& f = syms.Symbolize(pcs[i], /*caller=*/i > 0);
    StringId fn = strings_.Intern(f.function), mod = strings_.Intern(f.module);
    auto [fit, fresh] = frame_ids_.try_emplace({fn, mod}, static_cast<uint32_t>(frames_.size()));
    if (fresh) {
      frames_.push_back({fn, mod, f.rel_address});
      if (!f.symbolized) ++unsymbolized_;
    }
    auto [sit, sfresh] = stack_ids_.try_emplace({parent, fit->second}, static_cast<uint32_t>(stacks_.size() + 1));
    if (sfresh) stacks_.emplace_back(parent, fit->second);
    parent = sit->second;
  }
  (void)from_dwarf;
  return parent;
}

void PerfSampler::Emit(TraceBuilder& b, TimeNs from, TimeNs to) {
  std::vector<FrameId> frame_map(frames_.size(), kNoFrame);
  std::vector<StackId> stack_map(stacks_.size() + 1, kNoStack);
  auto frame = [&](uint32_t f) {
    if (frame_map[f] == kNoFrame) {
      const LocalFrame& lf = frames_[f];
      frame_map[f] = b.AddFrame({.function_id = b.Intern(strings_.Get(lf.function)),
                                 .module_id = b.Intern(strings_.Get(lf.module)),
                                 .address = lf.address});
    }
    return frame_map[f];
  };
  // Stacks are created parent-first, so a parent's id is always mapped before its children's.
  std::function<StackId(uint32_t)> stack = [&](uint32_t s) -> StackId {
    if (s == 0) return kNoStack;
    if (stack_map[s] == kNoStack) {
      auto [parent, f] = stacks_[s - 1];
      stack_map[s] = b.AddStack(stack(parent), frame(f));
    }
    return stack_map[s];
  };
  for (const Sample& s : samples_) {
    if (s.ts < from || s.ts > to) continue;
    b.AddSample({.ts_ns = s.ts, .track_id = b.ThreadTrack(s.pid, s.tid), .stack_id = stack(s.stack),
                 .weight = 1});
  }
  for (const Counter& c : counters_) {
    TrackId track = kNoTrack;
    for (const auto& [ts, v] : c.points) {
      if (ts < from || ts > to) continue;
      if (track == kNoTrack) {
        track = b.ChildTrack(b.ProcessTrack(target_), TrackKind::kCounter, b.Intern(c.name));
        b.tracks().unit_id[Index(track)] = b.Intern("1/s");
      }
      b.AddCounter(track, ts, v);
    }
  }
  for (const auto& [key, name] : thread_names_) {
    TrackId t = b.ThreadTrack(key.first, key.second);
    if (b.tracks().name_id[Index(t)] == kEmptyString) b.tracks().name_id[Index(t)] = b.Intern(name);
  }
  if (sampling_failed_) b.stats().Add(ImportStat::collect_perf_unavailable);
  if (counters_failed_) b.stats().Add(ImportStat::collect_hw_counters_unavailable);
  if (lost_ > 0) b.stats().Add(ImportStat::collect_samples_lost, lost_);
  if (unsymbolized_ > 0) b.stats().Add(ImportStat::collect_unsymbolized_frames, unsymbolized_);
  if (dwarf_failed_ > 0) b.stats().Add(ImportStat::collect_dwarf_unwind_failed, dwarf_failed_);
  b.SetMetadata("cpu_sampling_hz", Value::Double(sampling_failed_ ? 0 : o_.cpu_sampling_hz));
}

void PerfSampler::Forget(TimeNs before) {
  samples_.erase(std::remove_if(samples_.begin(), samples_.end(), [&](const Sample& s) { return s.ts < before; }),
                 samples_.end());
  for (Counter& c : counters_) {
    auto& p = c.points;
    p.erase(std::remove_if(p.begin(), p.end(), [&](const auto& x) { return x.first < before; }), p.end());
  }
}

}  // namespace cprof
