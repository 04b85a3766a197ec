// One trial's process: the command started under its supervisor in a process group of its own
// (command_supervisor.h), its stdout and stderr collected, and the group killed at the timeout, at
// the run's deadline (tune --time) or after an interrupt (tune's signal handler).
//
//   ProcessResult p = RunProcess({"python3", "bench.py"}, {{"OMP_NUM_THREADS", "4"}}, 60 * kNsPerS, "");
//   p.exit_code; p.out;  // the last 1 MiB of stdout
//
// On timeout the group gets SIGTERM, then SIGKILL after a grace period; tune's own death, kill -9
// included, ends it too (the supervisor sees it).
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/time_units.h"

namespace cprof::tune {

// Interrupting a study (tune's handler of SIGINT, SIGTERM, SIGHUP): every running trial's process
// group gets SIGTERM, no new one starts, and the study loop stops without recording the trials it
// was running, so a rerun of the same command runs them again. Async-signal-safe; process-wide.
void InterruptTrials(int signal);
// The signal InterruptTrials was first called with; 0 when it was not.
int TrialsInterrupted();

struct ProcessResult {
  int exit_code = -1;  // valid when !signaled && !timed_out
  int signal = 0;
  bool timed_out = false;
  std::string out;  // stdout (the last 1 MiB)
  std::string err;  // stderr (the last 64 KiB)
  double seconds = 0;
  std::string spawn_error;  // exec failed (no such file, ...)
  // Stopped at `stop_at` (killed as at a timeout), or not started because it had passed.
  bool past_deadline = false;
};

// Runs argv with extra environment, capturing output; see the header comment for timeouts.
// `stop_at`: a deadline beside the timeout (tune --time), reported apart (past_deadline).
// `on_stdout`, when given, also sees all of stdout as it comes (ProcessResult::out keeps its end).
ProcessResult RunProcess(
    const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env,
    TimeNs timeout_ns, const std::string& cwd,
    std::chrono::steady_clock::time_point stop_at = std::chrono::steady_clock::time_point::max(),
    const std::function<void(std::string_view)>& on_stdout = {});

// The file a command name runs: a name with '/' as it is, else the first executable regular file
// of that name on PATH; the name itself when there is none. Looked up in the parent, so that the
// child only calls async-signal-safe functions.
std::string ResolveExecutable(const std::string& name);

// "signal 9 (Killed)".
std::string SignalName(int sig);

}  // namespace cprof::tune
