// The first process of a trial (its process group's leader) supervises the command, so that
// neither killing `tune` (kill -9, which no handler sees) nor the command's own children outlive
// the trial: an orphaned trial went on running beside the rerun that resumed the study, skewing
// its timings.
//
//   if (fork() == 0) { setpgid(0, 0); /* stdio */ SuperviseCommand(tuner, exe, argv, envp, fd); }
//
// It forks the command, waits, and exits as the command did (same code, or the same signal).
// When the thread that started it dies (PR_SET_PDEATHSIG) it sends the group SIGTERM and, 2 s
// later, SIGKILL, as a timeout does. It ignores the group signals meant for the command. On
// kKillCommandSignal (what a timeout sends once SIGTERM's grace is over) it kills the rest of the
// group itself and then what escaped it: a SIGKILL of the whole group from outside killed the
// supervisor too, and the escaped descendants of a command that ignored SIGTERM ran on. It is a
// child subreaper (PR_SET_CHILD_SUBREAPER): a descendant whose parent died becomes its child, and
// once the command has ended it kills those outside its process group, which left the group with
// setsid() or setpgid() (`Popen(..., start_new_session=True)`, `set -m`) and escaped the group's
// kill, and keeps looking for 200 ms while children remain (a shell's `setsid prog &` leaves
// the group just after the shell exits). Those still in the group are the caller's: it gives
// them a second to finish writing.
// Runs between fork and exec: async-signal-safe calls only. Writes errno to `status_fd` when the
// command cannot be started.
#pragma once

#include <signal.h>
#include <sys/types.h>

namespace cprof::tune {

// Sent to the supervisor (the group's leader): kill the command, its group and what left it now.
inline constexpr int kKillCommandSignal = SIGUSR1;

[[noreturn]] void SuperviseCommand(pid_t tuner, const char* exe, char* const* argv, char* const* envp,
                                   int status_fd);

}  // namespace cprof::tune
