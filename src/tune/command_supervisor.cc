// The trial's supervisor (command_supervisor.h).
#include "tune/command_supervisor.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cerrno>

namespace cprof::tune {
namespace {

// This process's children (its one thread's, /proc/thread-self/children: in another pid
// namespace's /proc a path with our pid would name someone else), into `pids`; how many. 0 when
// the kernel does not offer the file (CONFIG_PROC_CHILDREN, Linux 3.17+).
int ReadChildren(pid_t* pids, int capacity) {
  const int fd = ::open("/proc/thread-self/children", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return 0;
  char buf[8192];
  ssize_t got;
  do got = ::read(fd, buf, sizeof buf);
  while (got < 0 && errno == EINTR);
  ::close(fd);
  // A full buffer may end inside a number: only numbers followed by a space count.
  int count = 0;
  pid_t v = 0;
  for (ssize_t i = 0; i < (got > 0 ? got : 0) && count < capacity; ++i) {
    if (buf[i] >= '0' && buf[i] <= '9') {
      v = v * 10 + (buf[i] - '0');
    } else {
      if (v > 0) pids[count++] = v;
      v = 0;
    }
  }
  return count;
}

// Kills the children outside this process group, and their children as they are orphaned to
// this subreaper in turn; reaps them. Children in the group are left to the group's kill.
void KillEscapedDescendants() {
  const pid_t group = ::getpgrp();
  for (int round = 0; round < 64; ++round) {
    pid_t pids[1024];
    const int n = ReadChildren(pids, 1024);
    bool killed = false;
    for (int i = 0; i < n; ++i) {
      if (::getpgid(pids[i]) == group) continue;
      ::kill(pids[i], SIGKILL);
      killed = true;
    }
    // Reap what died (the killed, and in-group orphans that ended), without waiting for the rest.
    while (::waitpid(-1, nullptr, WNOHANG) > 0) {
    }
    if (!killed) return;
    struct timespec ts = {0, 5 * 1000 * 1000};  // their children reach this subreaper
    ::nanosleep(&ts, nullptr);
  }
}

// Sends SIGKILL to every other process of this process group, found by a scan of /proc (raw
// getdents64: no allocation); how many. A pid from another namespace's /proc either names a
// process of this group here or is skipped: getpgid compares in this namespace.
int KillGroupButSelf() {
  const pid_t group = ::getpgrp(), self = ::getpid();
  const int fd = ::open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return 0;
  int killed = 0;
  alignas(struct dirent64) char buf[16384];
  for (ssize_t n; (n = ::getdents64(fd, buf, sizeof buf)) > 0;) {
    for (ssize_t off = 0; off < n;) {
      const auto* d = reinterpret_cast<const struct dirent64*>(buf + off);
      off += d->d_reclen;
      pid_t pid = 0;
      const char* c = d->d_name;
      for (; *c >= '0' && *c <= '9'; ++c) pid = pid * 10 + (*c - '0');
      if (*c != '\0' || pid <= 0 || pid == self || ::getpgid(pid) != group) continue;
      ::kill(pid, SIGKILL);
      ++killed;
    }
  }
  ::close(fd);
  return killed;
}

// Kills the command (`cmd`, reaped into *wstatus), the rest of its group, and the descendants that
// left the group, which reach this subreaper as their parents die; until none is left. The
// supervisor itself lives on to do the last part: a kill of the whole group from outside ended it
// first, and the escaped descendants of a command that ignored SIGTERM ran on.
void KillCommandAndDescendants(pid_t cmd, int* wstatus) {
  KillGroupButSelf();
  while (::waitpid(cmd, wstatus, 0) < 0 && errno == EINTR) {
  }
  for (int round = 0; round < 64; ++round) {
    const int killed = KillGroupButSelf();
    KillEscapedDescendants();
    pid_t any;
    if (killed == 0 && ReadChildren(&any, 1) == 0) return;
    struct timespec ts = {0, 5 * 1000 * 1000};
    ::nanosleep(&ts, nullptr);
  }
}

}  // namespace

[[noreturn]] void SuperviseCommand(pid_t tuner, const char* exe, char* const* argv, char* const* envp,
                                   int status_fd) {
  sigset_t waited, old_mask;
  ::sigemptyset(&waited);
  ::sigaddset(&waited, SIGCHLD);
  ::sigaddset(&waited, SIGUSR2);
  ::sigaddset(&waited, kKillCommandSignal);
  ::sigprocmask(SIG_BLOCK, &waited, &old_mask);
  constexpr int kGroupSignals[] = {SIGTERM, SIGINT, SIGHUP};
  struct sigaction ignore = {}, old_actions[3] = {};
  ignore.sa_handler = SIG_IGN;
  for (int i = 0; i < 3; ++i) ::sigaction(kGroupSignals[i], &ignore, &old_actions[i]);
  ::prctl(PR_SET_PDEATHSIG, SIGUSR2);
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  bool orphaned = ::getppid() != tuner;  // died before prctl
  const pid_t cmd = ::fork();
  if (cmd == 0) {
    for (int i = 0; i < 3; ++i) ::sigaction(kGroupSignals[i], &old_actions[i], nullptr);
    ::sigprocmask(SIG_SETMASK, &old_mask, nullptr);
    ::execve(exe, argv, envp);
    int e = errno;
    (void)!::write(status_fd, &e, sizeof e);
    ::_exit(127);
  }
  if (cmd < 0) {
    int e = errno;
    (void)!::write(status_fd, &e, sizeof e);
    ::_exit(127);
  }
  ::close(status_fd);
  ::close(1);  // the command's output pipes close when it and its children are done
  ::close(2);
  int wstatus = 0;
  while (true) {
    if (orphaned) {
      ::kill(-::getpgrp(), SIGTERM);
      for (int i = 0; i < 40 && ::waitpid(cmd, &wstatus, WNOHANG) == 0; ++i) {
        struct timespec ts = {0, 50 * 1000 * 1000};
        ::nanosleep(&ts, nullptr);
      }
      KillCommandAndDescendants(cmd, &wstatus);
      ::_exit(137);
    }
    siginfo_t info;
    if (::sigwaitinfo(&waited, &info) < 0) continue;  // EINTR
    if (info.si_signo == SIGUSR2) {
      orphaned = true;
      continue;
    }
    if (info.si_signo == kKillCommandSignal) {
      KillCommandAndDescendants(cmd, &wstatus);
      break;
    }
    // The command, or an orphan of it that ended (a subreaper's child): reap them all.
    bool ended = false;
    int st = 0;
    for (pid_t w; (w = ::waitpid(-1, &st, WNOHANG)) > 0;)
      if (w == cmd && (WIFEXITED(st) || WIFSIGNALED(st))) {
        wstatus = st;
        ended = true;
      }
    if (ended) break;
  }
  // A child the command left in the group may call setsid() a moment after the command exits
  // (`setsid sleep 30 &` as a shell's last word): while children remain, look again for up to
  // 200 ms. A trial that leaves none ends at once.
  for (int i = 0; i < 20; ++i) {
    KillEscapedDescendants();
    pid_t any;
    if (ReadChildren(&any, 1) == 0) break;
    struct timespec ts = {0, 10 * 1000 * 1000};
    ::nanosleep(&ts, nullptr);
  }
  if (WIFEXITED(wstatus)) ::_exit(WEXITSTATUS(wstatus));
  // Killed by a signal: die of the same one (without a second core dump).
  const int sig = WTERMSIG(wstatus);
  struct rlimit no_core = {0, 0};
  ::setrlimit(RLIMIT_CORE, &no_core);
  ::signal(sig, SIG_DFL);
  sigset_t unblock;
  ::sigemptyset(&unblock);
  ::sigaddset(&unblock, sig);
  ::sigprocmask(SIG_UNBLOCK, &unblock, nullptr);
  ::kill(::getpid(), sig);
  ::_exit(128 + sig);
}

}  // namespace cprof::tune
