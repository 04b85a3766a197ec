// Worker ids and liveness: see worker_id.h.
#include "tune/worker_id.h"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>

namespace cprof::tune {

std::string HostName() {
  char buf[256] = {0};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "localhost";
  return buf;
}

std::string NewWorkerId(const std::string& host, int index) {
  return fmt::format("{}:{}:{}-{:x}", host, ::getpid(), index,
                     static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count()) & 0xffffff);
}

bool WorkerAlive(const TrialRecord& t, const std::string& host, double now, double stale_after) {
  if (t.worker.empty()) return false;
  size_t a = t.worker.find(':');
  size_t b = a == std::string::npos ? a : t.worker.find(':', a + 1);
  if (a != std::string::npos && b != std::string::npos && t.worker.substr(0, a) == host) {
    pid_t pid = static_cast<pid_t>(std::atoll(t.worker.substr(a + 1, b - a - 1).c_str()));
    if (pid == ::getpid()) return true;
    if (pid > 0 && ::kill(pid, 0) != 0 && errno == ESRCH) return false;
  }
  return now - std::max(t.heartbeat_at, t.started_at) < stale_after;
}

}  // namespace cprof::tune
