// One trial's process: spawn, collect, kill (trial_process.h).
#include "tune/trial_process.h"

#include <errno.h>
#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <optional>
#include <set>
#include <thread>

#include "tune/command_supervisor.h"

extern char** environ;

namespace cprof::tune {
namespace {

// Ends a trial whose command outlived SIGTERM's grace: its supervisor kills the command's group
// and the processes that left it (command_supervisor.h); the whole group is killed from here only
// if the supervisor has not ended a second later. Reaps the supervisor into *wstatus.
void KillTrial(pid_t supervisor, int* wstatus) {
  ::kill(supervisor, kKillCommandSignal);
  for (int i = 0; i < 100; ++i) {
    if (::waitpid(supervisor, wstatus, WNOHANG) != 0) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ::kill(-supervisor, SIGKILL);
  ::waitpid(supervisor, wstatus, 0);
}

constexpr size_t kMaxOut = 1 << 20;
constexpr size_t kMaxErr = 64 << 10;

void AppendCapped(std::string& dst, const char* data, size_t n, size_t cap) {
  dst.append(data, n);
  if (dst.size() > 2 * cap) dst.erase(0, dst.size() - cap);
}

// The process groups of the trials running now, for InterruptTrials: fixed slots of atomics, so a
// signal handler can read them.
constexpr size_t kMaxLiveGroups = 256;
std::atomic<pid_t> g_live_groups[kMaxLiveGroups];
std::atomic<int> g_interrupt_signal{0};

// Registers a trial's process group while it lives.
class LiveGroup {
 public:
  explicit LiveGroup(pid_t pgid) {
    for (size_t i = 0; i < kMaxLiveGroups && slot_ < 0; ++i) {
      pid_t empty = 0;
      if (g_live_groups[i].compare_exchange_strong(empty, pgid)) slot_ = static_cast<int>(i);
    }
    // Interrupted between the check before fork and here: this one goes too.
    if (g_interrupt_signal.load() != 0) ::kill(-pgid, SIGTERM);
  }
  ~LiveGroup() {
    if (slot_ >= 0) g_live_groups[slot_].store(0);
  }
  LiveGroup(const LiveGroup&) = delete;
  LiveGroup& operator=(const LiveGroup&) = delete;

 private:
  int slot_ = -1;
};

}  // namespace

std::string ResolveExecutable(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string p = path ? path : "/usr/local/bin:/usr/bin:/bin";
  size_t start = 0;
  while (start <= p.size()) {
    size_t end = p.find(':', start);
    if (end == std::string::npos) end = p.size();
    std::string dir = p.substr(start, end - start);
    if (dir.empty()) dir = ".";
    std::string cand = dir + "/" + name;
    struct stat st;
    if (::stat(cand.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(cand.c_str(), X_OK) == 0)
      return cand;
    start = end + 1;
  }
  return name;
}

std::string SignalName(int sig) {
  const char* s = ::strsignal(sig);
  return fmt::format("signal {} ({})", sig, s ? s : "?");
}

void InterruptTrials(int signal) {
  int none = 0;
  g_interrupt_signal.compare_exchange_strong(none, signal);
  for (auto& g : g_live_groups)
    if (pid_t pgid = g.load(); pgid > 0) ::kill(-pgid, SIGTERM);
}

int TrialsInterrupted() { return g_interrupt_signal.load(); }

namespace {

// Reads the command's stdout and stderr until it exits (and a second more for grandchildren that
// hold the pipes), killing its group at the timeout, at the run's deadline, or 2 s after an
// interrupt it ignores. Sets r's output, timed_out and past_deadline; returns the wait status.
int CollectUntilExit(pid_t pid, int out_fd, int err_fd, std::chrono::steady_clock::time_point timeout_at,
                     std::chrono::steady_clock::time_point stop_at,
                     const std::function<void(std::string_view)>& on_stdout, ProcessResult& r) {
  const auto deadline = std::min(timeout_at, stop_at);
  bool out_open = true, err_open = true, exited = false;
  int wstatus = 0;
  std::chrono::steady_clock::time_point exited_at;
  std::optional<std::chrono::steady_clock::time_point> interrupted_at;
  char buf[65536];
  while (out_open || err_open || !exited) {
    auto now = std::chrono::steady_clock::now();
    // Ctrl-C or SIGTERM sent the group SIGTERM (InterruptTrials); a command that catches it and
    // goes on is killed 2 s later, as on a timeout (tune waited for it however long it ran).
    if (!exited && TrialsInterrupted() != 0) {
      if (!interrupted_at)
        interrupted_at = now;
      else if (now - *interrupted_at >= std::chrono::seconds(2)) {
        KillTrial(pid, &wstatus);
        exited = true;
        exited_at = std::chrono::steady_clock::now();
      }
    }
    if (!exited && now >= deadline) {
      (now >= timeout_at ? r.timed_out : r.past_deadline) = true;
      ::kill(-pid, SIGTERM);
      for (int i = 0; i < 40 && ::waitpid(pid, &wstatus, WNOHANG) == 0; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
      KillTrial(pid, &wstatus);
      exited = true;
      break;
    }
    // After the child exits, grandchildren may still hold the pipes: give them a second.
    if (exited && now - exited_at > std::chrono::seconds(1)) break;
    pollfd fds[2];
    int nfds = 0;
    if (out_open) fds[nfds++] = {out_fd, POLLIN, 0};
    if (err_open) fds[nfds++] = {err_fd, POLLIN, 0};
    if (nfds > 0)
      ::poll(fds, nfds, 50);
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    for (int i = 0; i < nfds; ++i) {
      if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      ssize_t n = ::read(fds[i].fd, buf, sizeof buf);
      if (n > 0) {
        if (fds[i].fd == out_fd) {
          AppendCapped(r.out, buf, n, kMaxOut);
          if (on_stdout) on_stdout(std::string_view(buf, static_cast<size_t>(n)));
        } else {
          AppendCapped(r.err, buf, n, kMaxErr);
        }
      } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        (fds[i].fd == out_fd ? out_open : err_open) = false;
      }
    }
    if (!exited) {
      pid_t w = ::waitpid(pid, &wstatus, WNOHANG);
      if (w == pid) {
        exited = true;
        exited_at = std::chrono::steady_clock::now();
      }
    }
  }
  return wstatus;
}

// The child's environment: ours, with the entries of `env` set over it.
std::vector<std::string> ChildEnvironment(const std::vector<std::pair<std::string, std::string>>& env) {
  std::vector<std::string> out;
  std::set<std::string> overridden;
  for (const auto& [k, v] : env) overridden.insert(k);
  for (char** e = environ; *e; ++e) {
    std::string kv = *e;
    if (!overridden.count(kv.substr(0, kv.find('=')))) out.push_back(kv);
  }
  for (const auto& [k, v] : env) out.push_back(k + "=" + v);
  return out;
}

}  // namespace

ProcessResult RunProcess(const std::vector<std::string>& argv,
                         const std::vector<std::pair<std::string, std::string>>& env, TimeNs timeout_ns,
                         const std::string& cwd, std::chrono::steady_clock::time_point stop_at,
                         const std::function<void(std::string_view)>& on_stdout) {
  ProcessResult r;
  if (argv.empty()) {
    r.spawn_error = "empty command";
    return r;
  }
  if (int sig = g_interrupt_signal.load()) {
    r.spawn_error = fmt::format("not started: interrupted by {}", SignalName(sig));
    return r;
  }
  if (std::chrono::steady_clock::now() >= stop_at) {
    r.past_deadline = true;
    return r;
  }
  // Everything the child needs is prepared before fork.
  std::string exe = ResolveExecutable(argv[0]);
  std::vector<char*> cargv;
  for (const std::string& a : argv) cargv.push_back(const_cast<char*>(a.c_str()));
  cargv.push_back(nullptr);
  std::vector<std::string> env_strings = ChildEnvironment(env);
  std::vector<char*> cenv;
  for (std::string& s : env_strings) cenv.push_back(s.data());
  cenv.push_back(nullptr);

  int out_pipe[2], err_pipe[2], status_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0 ||
      ::pipe2(status_pipe, O_CLOEXEC) != 0) {
    r.spawn_error = std::string("pipe: ") + ::strerror(errno);
    return r;
  }
  int devnull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const pid_t tuner = ::getpid();
  auto start = std::chrono::steady_clock::now();
  pid_t pid = ::fork();
  if (pid < 0) {
    r.spawn_error = std::string("fork: ") + ::strerror(errno);
    for (int fd :
         {out_pipe[0], out_pipe[1], err_pipe[0], err_pipe[1], status_pipe[0], status_pipe[1], devnull})
      ::close(fd);
    return r;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    ::dup2(devnull, 0);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    if (!cwd.empty() && ::chdir(cwd.c_str()) != 0) {
      int e = errno;
      (void)!::write(status_pipe[1], &e, sizeof e);
      ::_exit(127);
    }
    SuperviseCommand(tuner, exe.c_str(), cargv.data(), cenv.data(), status_pipe[1]);
  }
  ::setpgid(pid, pid);  // also here: no race with the child's own call
  LiveGroup live(pid);
  for (int fd : {out_pipe[1], err_pipe[1], status_pipe[1], devnull}) ::close(fd);
  int child_errno = 0;
  ssize_t got;
  do got = ::read(status_pipe[0], &child_errno, sizeof child_errno);
  while (got < 0 && errno == EINTR);
  ::close(status_pipe[0]);
  if (got == sizeof child_errno) {
    r.spawn_error = fmt::format("cannot run '{}': {}", argv[0], ::strerror(child_errno));
    ::waitpid(pid, nullptr, 0);
    ::close(out_pipe[0]);
    ::close(err_pipe[0]);
    return r;
  }

  const auto timeout_at = timeout_ns > 0 ? start + std::chrono::nanoseconds(timeout_ns)
                                         : std::chrono::steady_clock::time_point::max();
  const int wstatus = CollectUntilExit(pid, out_pipe[0], err_pipe[0], timeout_at, stop_at, on_stdout, r);
  ::kill(-pid, SIGKILL);  // stragglers of the group
  ::close(out_pipe[0]);
  ::close(err_pipe[0]);
  if (r.out.size() > kMaxOut) r.out.erase(0, r.out.size() - kMaxOut);
  if (r.err.size() > kMaxErr) r.err.erase(0, r.err.size() - kMaxErr);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!r.timed_out && !r.past_deadline) {
    if (WIFEXITED(wstatus))
      r.exit_code = WEXITSTATUS(wstatus);
    else if (WIFSIGNALED(wstatus))
      r.signal = WTERMSIG(wstatus);
  }
  return r;
}

}  // namespace cprof::tune
