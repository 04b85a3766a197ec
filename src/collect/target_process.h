// The process being traced: either a command `trace` starts (held at a gate until the
// collectors are attached, so nothing it does is missed) or a running process it attaches to.
//
//   ASSIGN_OR_RETURN(auto target, TargetProcess::Spawn({.argv = {"python3", "train.py"}}));
//   ... open perf events on target->pid() with enable_on_exec ...
//   RETURN_IF_ERROR(target->Release());          // execs; kNotFound if the command cannot start
//   while (!target->WaitFor(50 * kNsPerMs)) { ... }
//   int code = target->exit_code();              // 128+N when killed by signal N
//
// Signals: while a TargetProcess exists, SIGINT/SIGTERM/SIGHUP/SIGQUIT sent to `trace` are
// forwarded to a spawned target (a terminal's Ctrl-C already reaches it through the process
// group, so those are not sent twice), then to the rest of its tree at the next WaitFor, and
// counted in interrupts(). `trace` is the subreaper of the tree. Only one TargetProcess may
// exist at a time. Not thread-safe: one thread owns it.
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/time_units.h"

namespace cprof {

class TargetProcess {
 public:
  struct SpawnOptions {
    std::vector<std::string> argv;                            // argv[0] is searched in PATH
    std::vector<std::pair<std::string, std::string>> env;     // set (or replaced) in the child
  };

  // Forks a child that waits at a gate; it runs nothing of the target until Release().
  static StatusOr<std::unique_ptr<TargetProcess>> Spawn(const SpawnOptions& options);
  // Attaches to a running process (not our child): kNotFound if there is no such process.
  static StatusOr<std::unique_ptr<TargetProcess>> Attach(pid_t pid);

  ~TargetProcess();
  TargetProcess(const TargetProcess&) = delete;
  TargetProcess& operator=(const TargetProcess&) = delete;

  pid_t pid() const { return pid_; }
  bool spawned() const { return spawned_; }
  // CLOCK_MONOTONIC ns when the target was released (spawned) or attached.
  TimeNs start_ns() const { return start_ns_; }

  // Spawned targets: opens the gate; the child execs. Returns kNotFound / kInvalidInput naming
  // the command when exec fails (the child has then exited), after reaping it.
  Status Release();

  // Waits up to `timeout_ns` for the target to end (or a signal to arrive). True once it ended.
  bool WaitFor(TimeNs timeout_ns);
  bool exited() const { return exited_; }
  // The target's exit code, 128+signal if a signal killed it; 0 for attached processes.
  int exit_code() const { return exit_code_; }
  // Describes how the target ended ("exited with code 3", "killed by SIGSEGV").
  std::string ExitDescription() const;

  // Signals received by `trace` (SIGINT, SIGTERM, ...) since the target was started.
  int interrupts() const;
  // Sends `sig` to the spawned target and every process below it (a wrapper such as `sh` or
  // torchrun passes no signal on), including ones it left running when it exited.
  void Kill(int sig);

 private:
  TargetProcess() = default;

  pid_t pid_ = -1;
  bool spawned_ = false;
  int gate_fd_ = -1;     // write end: one byte opens the gate
  int error_fd_ = -1;    // read end: the child's errno if exec failed, EOF if it succeeded
  int pidfd_ = -1;
  bool exited_ = false;
  int exit_code_ = 0;
  int term_signal_ = 0;
  TimeNs start_ns_ = 0;
  std::string command_;
};

// CLOCK_MONOTONIC in ns: the one clock every collector stamps.
TimeNs MonotonicNowNs();

}  // namespace cprof
