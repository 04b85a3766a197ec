// Collection: runs (or attaches to) a target, drives every source while it runs, and builds one
// Trace of what was collected. This is `cann-profiler trace` without the flag parsing.
//
//   CollectOptions o;
//   o.argv = {"/usr/bin/python3", "train.py"};
//   ASSIGN_OR_RETURN(auto c, Collection::Start(o));    // the target is running
//   ASSIGN_OR_RETURN(Trace trace, c->Run());           // until it ends, --duration, or Ctrl-C
//   RETURN_IF_ERROR(ExportTrace(trace, "run.pb", ExportFormat::kPerfettoPb));
//   return c->WaitForTarget();                         // the target's exit code
//
// Errors: a target that cannot start makes Start() fail with kNotFound/kInvalidInput. Once the
// target ran, Run() returns a trace even if the target crashed or `trace` was interrupted;
// collectors that could not run are reported through options.warn and counted in the trace's
// import stats. Times are CLOCK_MONOTONIC ns. One thread uses a Collection; one at a time.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "collect/collect_options.h"
#include "model/trace.h"

namespace cprof {

class TargetProcess;

class Collection {
 public:
  static StatusOr<std::unique_ptr<Collection>> Start(const CollectOptions& options);
  ~Collection();

  // Collects until the target ends, the duration passes, or `trace` is interrupted; then
  // builds the trace of everything collected inside --time_range. Call once.
  StatusOr<Trace> Run();

  // After Run(): waits for a spawned target still running (after --duration) and returns its
  // exit code (128+N if killed by signal N; 130 if `trace` was interrupted twice while it
  // ignored the signal; 0 for an attached process).
  int WaitForTarget();

  bool interrupted() const { return interrupted_; }
  int triggers_fired() const { return triggers_fired_; }
  bool duration_reached() const { return duration_reached_; }
  // "exited with code 0", "killed by SIGSEGV", "still running".
  std::string ExitDescription() const;
  pid_t target_pid() const;
  // Sends `sig` to a spawned target that is still running (trace --kill after --duration).
  void SignalTarget(int sig);

 private:
  explicit Collection(const CollectOptions& options);
  Status BuildEnvironment(std::vector<std::pair<std::string, std::string>>* env);
  StatusOr<Trace> BuildTrace(TimeNs from, TimeNs to);
  void Warn(std::string_view message) const;

  CollectOptions options_;
  std::unique_ptr<TargetProcess> target_;
  std::vector<std::unique_ptr<class Source>> sources_;
  std::string session_dir_;  // where the in-process runtime writes its record files
  std::string attached_command_;  // --pid: the process's command line, read when attaching
  bool interrupted_ = false;
  bool duration_reached_ = false;
  int triggers_fired_ = 0;
  // The collector's own cost while the target ran (its thread's CPU time and wake-ups from the
  // start of the loop to Stop), written to the trace's metadata.
  TimeNs collector_cpu_ns_ = 0;
  int64_t collector_wakeups_ = 0;
  class ProcSampler* proc_ = nullptr;
  class RuntimeSource* runtime_ = nullptr;
};

// The folder with the preload libraries and the Python shim: $CPROF_RUNTIME_DIR, else
// RuntimeDirForExecutable(the running executable).
std::string DefaultRuntimeDir();

// Where the runtime sits beside the executable `exe`: <dir>/runtime in a build tree, else
// <dir>/../lib/cann-profiler/runtime, where `make install` puts it (src/collect/CMakeLists.txt);
// the first that holds libcprof_preload.so, and the build-tree one when neither does.
//
//   RuntimeDirForExecutable("/usr/local/bin/cann-profiler")
//       // -> "/usr/local/bin/../lib/cann-profiler/runtime" once make install put it there
std::string RuntimeDirForExecutable(const std::filesystem::path& exe);

}  // namespace cprof
