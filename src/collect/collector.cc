// The collection loop: spawn or attach, poll the sources until the target ends, build the trace.
#include "collect/collector.h"

#include <signal.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "base/temp_dir.h"
#include "collect/command_line.h"
#include "collect/host_metadata.h"
#include "collect/perf_sampler.h"
#include "collect/proc_sampler.h"
#include "collect/runtime_source.h"
#include "collect/target_process.h"

namespace cprof {
namespace {

// The loop sleeps until the earliest source needs it (or the target ends, or a signal comes),
// at least kMinSleepNs and at most kMaxSleepNs.
constexpr TimeNs kMinSleepNs = 1 * kNsPerMs;
constexpr TimeNs kMaxSleepNs = 200 * kNsPerMs;

bool WantsFramework(CollectScope s) { return s == CollectScope::kFullStack || s == CollectScope::kFramework; }
bool WantsSamples(CollectScope s) { return s == CollectScope::kFullStack || s == CollectScope::kHost; }

TimeNs ThreadCpuNs() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<TimeNs>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
}

std::string Prepend(const char* var, const std::string& value, char sep) {
  const char* old = getenv(var);
  if (old == nullptr || *old == '\0') return value;
  return value + sep + old;
}

}  // namespace

std::string RuntimeDirForExecutable(const std::filesystem::path& exe) {
  const std::filesystem::path build_tree = exe.parent_path() / "runtime";
  const std::filesystem::path installed = exe.parent_path() / ".." / "lib" / "cann-profiler" / "runtime";
  std::error_code ec;
  for (const std::filesystem::path& dir : {build_tree, installed}) {
    if (std::filesystem::exists(dir / "libcprof_preload.so", ec)) return dir.string();
  }
  return build_tree.string();
}

std::string DefaultRuntimeDir() {
  if (const char* env = getenv("CPROF_RUNTIME_DIR"); env != nullptr && *env != '\0') return env;
  std::error_code ec;
  std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return "runtime";
  return RuntimeDirForExecutable(exe);
}

Collection::Collection(const CollectOptions& options) : options_(options) {}

Collection::~Collection() {
  sources_.clear();
  if (!session_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(session_dir_, ec);
  }
}

void Collection::Warn(std::string_view message) const {
  if (options_.warn) options_.warn(message);
}

pid_t Collection::target_pid() const { return target_ ? target_->pid() : -1; }

void Collection::SignalTarget(int sig) {
  if (target_ && target_->spawned() && !target_->exited()) target_->Kill(sig);
}

std::string Collection::ExitDescription() const {
  return target_ ? target_->ExitDescription() : "not started";
}

Status Collection::BuildEnvironment(std::vector<std::pair<std::string, std::string>>* env) {
  namespace fs = std::filesystem;
  std::string dir = options_.runtime_dir.empty() ? DefaultRuntimeDir() : options_.runtime_dir;
  fs::path preload = fs::path(dir) / "libcprof_preload.so";
  fs::path sdk = fs::path(dir) / "libcprof.so";
  fs::path torch = fs::path(dir) / "libcprof_torch.so";
  fs::path python = fs::path(dir) / "python";
  std::error_code ec;
  if (!fs::exists(preload, ec) || !fs::exists(sdk, ec)) {
    Warn("framework layers off: the runtime libraries are not in '" + dir +
         "' (set CPROF_RUNTIME_DIR); collecting host-side data only");
    return Status::Ok();
  }
  ASSIGN_OR_RETURN(session_dir_, MakeTempDir("cprof-session-"));
  env->emplace_back("CPROF_SESSION_DIR", session_dir_);
  env->emplace_back("CPROF_SDK_LIB", sdk.string());
  env->emplace_back("LD_PRELOAD", Prepend("LD_PRELOAD", preload.string(), ':'));
  if (fs::exists(torch, ec)) {
    env->emplace_back("CPROF_TORCH_LIB", torch.string());
  } else {
    Warn("PyTorch operators off: " + torch.string() + " was not built (libtorch-dev missing)");
  }
  if (fs::exists(python, ec)) env->emplace_back("PYTHONPATH", Prepend("PYTHONPATH", python.string(), ':'));
  env->emplace_back("CPROF_EVENT_FRACTION", std::to_string(options_.sampling.event_fraction));
  env->emplace_back("CPROF_PY_SAMPLE_HZ", std::to_string(options_.sampling.cpu_hz));
  return Status::Ok();
}

StatusOr<std::unique_ptr<Collection>> Collection::Start(const CollectOptions& o) {
  if (o.argv.empty() && o.attach_pid <= 0) return InvalidInput("trace: no target (--target, -- CMD or --pid)");
  auto c = std::unique_ptr<Collection>(new Collection(o));
  const bool attach = o.attach_pid > 0;

  std::vector<std::pair<std::string, std::string>> env;
  if (attach) {
    ASSIGN_OR_RETURN(c->target_, TargetProcess::Attach(o.attach_pid));
    // Its command line now, while it runs (it said "pid 6480"); NUL-separated in /proc.
    std::ifstream in("/proc/" + std::to_string(o.attach_pid) + "/cmdline", std::ios::binary);
    std::vector<std::string> argv;
    for (std::string arg; std::getline(in, arg, '\0');) argv.push_back(arg);
    c->attached_command_ = argv.empty() ? "pid " + std::to_string(o.attach_pid)
                                        : JoinCommandLine(RedactedArgv(std::move(argv)));
    c->Warn("attached to a running process: collecting CPU samples and /proc metrics only "
            "(framework layers need the target to be started by `trace`)");
  } else {
    if (WantsFramework(o.scope)) RETURN_IF_ERROR(c->BuildEnvironment(&env));
    ASSIGN_OR_RETURN(c->target_, TargetProcess::Spawn({.argv = o.argv, .env = env}));
  }

  auto proc = std::make_unique<ProcSampler>(o.proc_interval_ns);
  c->proc_ = proc.get();
  c->sources_.push_back(std::move(proc));
  if (WantsSamples(o.scope) || o.scope == CollectScope::kHardwareOnly) {
    PerfSampler::Options po;
    po.cpu_sampling_hz = o.scope == CollectScope::kHardwareOnly ? 0 : o.sampling.cpu_hz;
    po.hardware_counters = o.hardware_counters;
    po.require_hardware_counters = o.require_hardware_counters;
    po.warn = o.warn;
    c->sources_.push_back(std::make_unique<PerfSampler>(po));
  }
  if (!c->session_dir_.empty()) {
    auto runtime = std::make_unique<RuntimeSource>(c->session_dir_);
    c->runtime_ = runtime.get();
    c->sources_.push_back(std::move(runtime));
  }

  for (auto it = c->sources_.begin(); it != c->sources_.end();) {
    Status st = (*it)->Attach(*c->target_);
    if (!st.ok()) {
      if (st.code() != StatusCode::kUnavailable || o.require_hardware_counters) return st;
      c->Warn(st.message());
      if (it->get() == c->proc_) c->proc_ = nullptr;
      if (it->get() == c->runtime_) c->runtime_ = nullptr;
      it = c->sources_.erase(it);
    } else {
      ++it;
    }
  }
  if (c->target_->spawned()) RETURN_IF_ERROR(c->target_->Release());
  return c;
}

StatusOr<Trace> Collection::Run() {
  const TimeNs start = target_->start_ns();
  const TimeNs deadline = options_.duration_ns ? start + *options_.duration_ns : INT64_MAX;
  const bool triggered = !options_.triggers.empty();

  // Triggers: spans feed the evaluator as they complete, /proc samples as they are taken.
  TriggerEvaluator evaluator(options_.triggers);
  struct Pending {
    TriggerFiring firing;
    TimeNs from, to;
  };
  std::vector<Pending> pending;
  TimeNs last_gauge = 0, next_eval = 0, next_forget = 0;
  if (triggered && runtime_ != nullptr) {
    runtime_->set_span_observer([&](std::string_view name, std::string_view category, TimeNs end, TimeNs dur) {
      evaluator.OnSpan(name, category, end, dur);
    });
  }
  auto write_due = [&](TimeNs now, bool all) -> Status {
    for (auto it = pending.begin(); it != pending.end();) {
      if (!all && it->to > now) {
        ++it;
        continue;
      }
      ASSIGN_OR_RETURN(Trace t, BuildTrace(it->from, std::min(it->to, now)));
      ++triggers_fired_;
      if (options_.on_trigger_trace) RETURN_IF_ERROR(options_.on_trigger_trace(t, it->firing, triggers_fired_));
      it = pending.erase(it);
    }
    return Status::Ok();
  };

  int interrupts_seen = 0;
  const TimeNs cpu_at_start = ThreadCpuNs();
  for (;;) {
    ++collector_wakeups_;
    TimeNs wake = std::min(deadline, MonotonicNowNs() + kMaxSleepNs);
    for (const auto& src : sources_) wake = std::min(wake, src->next_poll_ns());
    if (triggered) wake = std::min({wake, next_eval, next_forget});
    for (const Pending& p : pending) wake = std::min(wake, p.to);
    bool ended = target_->WaitFor(std::max(kMinSleepNs, wake - MonotonicNowNs()));
    TimeNs now = MonotonicNowNs();
    for (auto& src : sources_) src->Poll(now);
    if (triggered) {
      if (proc_ != nullptr && proc_->last_sample_ns() != last_gauge) {
        last_gauge = proc_->last_sample_ns();
        evaluator.OnGauge(TriggerGauge::kRssBytes, last_gauge, proc_->last_rss_bytes());
        evaluator.OnGauge(TriggerGauge::kCpuPercent, last_gauge, proc_->last_cpu_percent());
      }
      if (now >= next_eval) {
        next_eval = now + 100 * kNsPerMs;
        for (TriggerFiring& f : evaluator.Evaluate(now)) {
          const TriggerSpec& spec = options_.triggers[f.trigger];
          TimeNs from = std::max(start, now - spec.window_ns - options_.trigger_pre_ns);
          pending.push_back({std::move(f), from, now + options_.trigger_post_ns});
        }
      }
      RETURN_IF_ERROR(write_due(now, false));
      if (now >= next_forget) {
        // The flight recorder keeps what a trigger firing now would need, and what pending
        // firings still need.
        next_forget = now + kNsPerS;
        TimeNs keep_from = now - evaluator.longest_window() - options_.trigger_pre_ns - kNsPerS;
        for (const Pending& p : pending) keep_from = std::min(keep_from, p.from);
        for (auto& src : sources_) src->Forget(keep_from);
      }
    }
    if (ended) break;
    int interrupts = target_->interrupts();
    if (interrupts > interrupts_seen) {
      interrupts_seen = interrupts;
      interrupted_ = true;
      // Attached: Ctrl-C ends the collection. Spawned: the target got the signal too and
      // usually ends by itself; a second one stops waiting for it.
      if (!target_->spawned() || interrupts >= 2) break;
    }
    if (now >= deadline) {
      duration_reached_ = true;
      break;
    }
  }
  const TimeNs stop = MonotonicNowNs();
  collector_cpu_ns_ = ThreadCpuNs() - cpu_at_start;
  for (auto& src : sources_) src->Stop(stop);
  if (triggered) {
    for (TriggerFiring& f : evaluator.Evaluate(stop)) {
      const TriggerSpec& spec = options_.triggers[f.trigger];
      pending.push_back({std::move(f), std::max(start, stop - spec.window_ns - options_.trigger_pre_ns), stop});
    }
    RETURN_IF_ERROR(write_due(stop, true));
    if (runtime_ != nullptr) runtime_->set_span_observer(nullptr);
  }

  TimeNs from = start, to = stop;
  if (options_.time_range.start) from = std::max(from, start + *options_.time_range.start);
  if (options_.time_range.end) to = std::min(to, start + *options_.time_range.end);
  return BuildTrace(from, to);
}

StatusOr<Trace> Collection::BuildTrace(TimeNs from, TimeNs to) {
  const TimeNs start = target_->start_ns();
  Trace trace;
  TraceBuilder b(&trace);
  b.SetMetadataString(meta::kSourceFormat, "cann-profiler trace");
  b.SetMetadataString("clock", "CLOCK_MONOTONIC");
  b.SetMetadataString(meta::kCommandLine,
                      options_.argv.empty() ? attached_command_ : JoinCommandLine(RedactedArgv(options_.argv)));
  b.SetMetadataString("scope", CollectScopeName(options_.scope));
  // With --sampling_rate N%, only that share of the framework's operators is in the trace: counts
  // read from it are of the kept ones (summary showed 20 aten::mm where 40 ran, and said nothing).
  b.SetMetadata("op_event_fraction", Value::Double(options_.sampling.event_fraction));
  b.SetMetadata("target_pid", Value::Int(target_->pid()));
  b.SetMetadata("target_start_ns", Value::Int(start));
  b.SetMetadataString("target_exit", target_->ExitDescription());
  b.SetMetadata("collector_cpu_ns", Value::Int(collector_cpu_ns_));
  b.SetMetadata("collector_wakeups", Value::Int(collector_wakeups_));
  AddHostMetadata(b);
  b.ProcessTrack(target_->pid());
  for (auto& src : sources_) src->Emit(b, from, to);
  RETURN_IF_ERROR(b.Finalize());
  return trace;
}

int Collection::WaitForTarget() {
  if (!target_->spawned()) return 0;
  // Interrupted twice while the target ignores the signal: stop waiting for it.
  auto give_up = [&] {
    Warn("the target " + std::to_string(target_->pid()) + " is still running; not waiting for it");
    return 130;
  };
  if (!target_->exited() && target_->interrupts() >= 2) return give_up();
  while (!target_->exited()) {
    if (target_->WaitFor(100 * kNsPerMs)) break;
    if (target_->interrupts() >= 2) return give_up();
  }
  return target_->exit_code();
}

}  // namespace cprof
