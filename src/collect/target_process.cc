// Spawning (behind a gate), attaching, waiting for and signalling the traced process.
#include "collect/target_process.h"

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <vector>

#include "collect/command_line.h"

extern char** environ;

namespace cprof {
namespace {

constexpr int kForwardedSignals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT};

std::atomic<pid_t> g_child{-1};          // spawned target to forward signals to, or -1
std::atomic<int> g_interrupts{0};
std::atomic<int> g_forwarded{0};  // a signal forwarded to the target, for its descendants (WaitFor)
struct sigaction g_old_actions[std::size(kForwardedSignals)];

void OnSignal(int sig, siginfo_t* info, void*) {
  g_interrupts.fetch_add(1, std::memory_order_relaxed);
  pid_t child = g_child.load(std::memory_order_relaxed);
  // A terminal's signals (SI_KERNEL) go to the whole foreground process group, the target
  // included; only signals aimed at `trace` itself are forwarded, so none arrives twice.
  if (child > 0 && info != nullptr && info->si_code != SI_KERNEL) {
    kill(child, sig);
    g_forwarded.store(sig, std::memory_order_relaxed);
  }
}

// Every process below `trace` (its children, theirs, and orphans it reaped as the subreaper):
// the target's tree. A wrapper (`sh`, torchrun) passes no signal on, and its children outlived a
// --kill or a SIGTERM sent to the wrapper alone.
std::vector<pid_t> TargetTree() {
  std::map<pid_t, std::vector<pid_t>> children;
  if (DIR* proc = opendir("/proc")) {
    while (dirent* e = readdir(proc)) {
      char* end = nullptr;
      const long pid = std::strtol(e->d_name, &end, 10);
      if (pid <= 0 || *end != '\0') continue;
      std::ifstream stat(std::string("/proc/") + e->d_name + "/stat");
      std::string line;
      std::getline(stat, line);
      const size_t paren = line.rfind(')');  // the name may hold spaces and parentheses
      if (paren == std::string::npos) continue;
      std::istringstream rest(line.substr(paren + 1));
      char state = 0;
      pid_t ppid = 0;
      if (rest >> state >> ppid) children[ppid].push_back(static_cast<pid_t>(pid));
    }
    closedir(proc);
  }
  std::vector<pid_t> tree, todo = {getpid()};
  while (!todo.empty()) {
    const pid_t p = todo.back();
    todo.pop_back();
    for (pid_t c : children[p]) {
      tree.push_back(c);
      todo.push_back(c);
    }
  }
  return tree;
}

void InstallHandlers() {
  for (size_t i = 0; i < std::size(kForwardedSignals); ++i) {
    struct sigaction sa {};
    sa.sa_sigaction = OnSignal;
    sa.sa_flags = SA_SIGINFO;  // no SA_RESTART: a signal wakes the waiting poll()
    sigemptyset(&sa.sa_mask);
    sigaction(kForwardedSignals[i], &sa, &g_old_actions[i]);
  }
}

void RestoreHandlers() {
  for (size_t i = 0; i < std::size(kForwardedSignals); ++i) {
    sigaction(kForwardedSignals[i], &g_old_actions[i], nullptr);
  }
}

int PidfdOpen(pid_t pid) { return static_cast<int>(syscall(SYS_pidfd_open, pid, 0)); }

std::string SignalName(int sig) {
  const char* abbrev = sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "signal " + std::to_string(sig);
}

}  // namespace

TimeNs MonotonicNowNs() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<TimeNs>(ts.tv_sec) * kNsPerS + ts.tv_nsec;
}

StatusOr<std::unique_ptr<TargetProcess>> TargetProcess::Spawn(const SpawnOptions& options) {
  if (options.argv.empty()) return InvalidInput("no command to trace");
  if (g_child.load() != -1) return Internal("only one traced target at a time");

  // Everything the child needs is prepared before fork(): after it, only async-signal-safe calls.
  std::vector<char*> argv;
  for (const std::string& a : options.argv) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  std::map<std::string, std::string> env_map;
  for (char** e = environ; *e != nullptr; ++e) {
    std::string_view kv(*e);
    size_t eq = kv.find('=');
    if (eq == std::string_view::npos) continue;
    env_map[std::string(kv.substr(0, eq))] = std::string(kv.substr(eq + 1));
  }
  for (const auto& [k, v] : options.env) env_map[k] = v;
  std::vector<std::string> env_strings;
  env_strings.reserve(env_map.size());
  for (const auto& [k, v] : env_map) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (std::string& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  int gate[2], error[2];
  if (pipe2(gate, O_CLOEXEC) != 0) return Internal("pipe: {}", strerror(errno));
  if (pipe2(error, O_CLOEXEC) != 0) {
    close(gate[0]);
    close(gate[1]);
    return Internal("pipe: {}", strerror(errno));
  }

  auto target = std::unique_ptr<TargetProcess>(new TargetProcess());
  target->command_ = JoinCommandLine(options.argv);
  InstallHandlers();
  pid_t pid = fork();
  if (pid < 0) {
    int err = errno;
    RestoreHandlers();
    for (int fd : {gate[0], gate[1], error[0], error[1]}) close(fd);
    return Internal("fork: {}", strerror(err));
  }
  if (pid == 0) {
    // Child: default signal dispositions and mask, then wait at the gate.
    for (int sig : kForwardedSignals) signal(sig, SIG_DFL);
    signal(SIGPIPE, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    close(gate[1]);
    close(error[0]);
    char go = 0;
    ssize_t n;
    do {
      n = read(gate[0], &go, 1);
    } while (n < 0 && errno == EINTR);
    if (n != 1) _exit(127);  // `trace` went away before releasing us
    execvpe(argv[0], argv.data(), envp.data());
    int err = errno;
    ssize_t w = write(error[1], &err, sizeof(err));
    (void)w;
    _exit(127);
  }
  close(gate[0]);
  close(error[1]);
  // Orphans of the target's tree (a wrapper that exited) are re-parented to `trace`, so that a
  // signal for the tree still finds them.
  prctl(PR_SET_CHILD_SUBREAPER, 1);
  target->pid_ = pid;
  target->spawned_ = true;
  target->gate_fd_ = gate[1];
  target->error_fd_ = error[0];
  target->pidfd_ = PidfdOpen(pid);
  g_child.store(pid);
  g_interrupts.store(0);
  return target;
}

StatusOr<std::unique_ptr<TargetProcess>> TargetProcess::Attach(pid_t pid) {
  if (pid <= 0) return InvalidInput("--pid: {} is not a process id", pid);
  if (kill(pid, 0) != 0 && errno == ESRCH) return NotFound("--pid: no process {}", pid);
  auto target = std::unique_ptr<TargetProcess>(new TargetProcess());
  target->pid_ = pid;
  target->pidfd_ = PidfdOpen(pid);
  target->start_ns_ = MonotonicNowNs();
  target->command_ = "pid " + std::to_string(pid);
  g_interrupts.store(0);
  InstallHandlers();  // counted, not forwarded: Ctrl-C ends the collection, not the process
  return target;
}

TargetProcess::~TargetProcess() {
  for (int fd : {gate_fd_, error_fd_, pidfd_}) {
    if (fd >= 0) close(fd);
  }
  if (spawned_ && !exited_ && pid_ > 0) {
    // Never released (an error before Release()): the child is still at the gate.
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
  }
  g_child.store(-1);
  RestoreHandlers();
}

Status TargetProcess::Release() {
  if (!spawned_ || gate_fd_ < 0) return Internal("Release() on a target that is not at the gate");
  start_ns_ = MonotonicNowNs();
  char go = 1;
  ssize_t w = write(gate_fd_, &go, 1);
  close(gate_fd_);
  gate_fd_ = -1;
  if (w != 1) return Internal("cannot release the target: {}", strerror(errno));
  int err = 0;
  ssize_t n;
  do {
    n = read(error_fd_, &err, sizeof(err));
  } while (n < 0 && errno == EINTR);
  close(error_fd_);
  error_fd_ = -1;
  if (n == static_cast<ssize_t>(sizeof(err))) {
    int status = 0;
    waitpid(pid_, &status, 0);
    exited_ = true;
    exit_code_ = 127;
    g_child.store(-1);
    if (err == ENOENT) return NotFound("cannot start '{}': command not found", command_);
    return InvalidInput("cannot start '{}': {}", command_, strerror(err));
  }
  return Status::Ok();
}

bool TargetProcess::WaitFor(TimeNs timeout_ns) {
  // A signal the handler forwarded to the target goes to the rest of its tree too, from here:
  // reading /proc is not for a signal handler.
  if (const int sig = g_forwarded.exchange(0); sig != 0 && spawned_)
    for (pid_t p : TargetTree())
      if (p != pid_) kill(p, sig);
  if (exited_) return true;
  if (pidfd_ >= 0) {
    pollfd p{.fd = pidfd_, .events = POLLIN, .revents = 0};
    int r = poll(&p, 1, static_cast<int>(std::max<TimeNs>(0, timeout_ns / kNsPerMs)));
    if (r <= 0) return false;  // timeout or a signal
  }
  if (spawned_) {
    int status = 0;
    pid_t r = waitpid(pid_, &status, pidfd_ >= 0 ? 0 : WNOHANG);
    if (r == 0) {
      timespec ts{.tv_sec = 0, .tv_nsec = std::min<TimeNs>(timeout_ns, 20 * kNsPerMs)};
      nanosleep(&ts, nullptr);
      return false;
    }
    if (r < 0 && errno == EINTR) return false;
    exited_ = true;
    g_child.store(-1);
    if (r > 0 && WIFEXITED(status)) {
      exit_code_ = WEXITSTATUS(status);
    } else if (r > 0 && WIFSIGNALED(status)) {
      term_signal_ = WTERMSIG(status);
      exit_code_ = 128 + term_signal_;
    }
    return true;
  }
  // Attached: no exit status to collect.
  if (pidfd_ < 0) {
    if (kill(pid_, 0) == 0 || errno != ESRCH) {
      timespec ts{.tv_sec = 0, .tv_nsec = std::min<TimeNs>(timeout_ns, 20 * kNsPerMs)};
      nanosleep(&ts, nullptr);
      return false;
    }
  }
  exited_ = true;
  return true;
}

std::string TargetProcess::ExitDescription() const {
  if (!exited_) return "still running";
  if (!spawned_) return "exited";
  if (term_signal_ != 0) return "killed by " + SignalName(term_signal_);
  return "exited with code " + std::to_string(exit_code_);
}

int TargetProcess::interrupts() const { return g_interrupts.load(std::memory_order_relaxed); }

void TargetProcess::Kill(int sig) {
  if (!spawned_ || pid_ <= 0) return;
  // The target's descendants too (listed before any is signalled, while the tree is whole), even
  // when the target itself has exited and left them running.
  for (pid_t p : TargetTree()) kill(p, sig);
}

}  // namespace cprof
