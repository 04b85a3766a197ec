// A throwaway PostgreSQL server for tests: initdb into a temporary folder, start on a free port
// with a private Unix socket, stop and delete on destruction. Test-only (header, not in the library).
//
//   std::string why;
//   auto pg = PostgresTestServer::Start(&why);
//   if (!pg) GTEST_SKIP() << why;          // only when the server binaries are not installed
//   OpenStudyStorage(pg->url());
//
// PostgreSQL refuses to run as root: as root the server runs as the `postgres` user (Debian's
// package creates it) through runuser; otherwise as the current user.
#pragma once

#include <arpa/inet.h>
#include <glob.h>
#include <netinet/in.h>
#include <pwd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <vector>

#include "base/shell_quote.h"
#include "tune/trial_process.h"

namespace cprof::tune {

class PostgresTestServer {
 public:
  // nullptr when no server can be started; `why` says why (a missing binary means "skip", any
  // other failure is an error the caller should report).
  static std::unique_ptr<PostgresTestServer> Start(std::string* why, bool* missing_binaries = nullptr) {
    if (missing_binaries) *missing_binaries = false;
    std::string bindir = FindBinDir();
    if (bindir.empty()) {
      if (missing_binaries) *missing_binaries = true;
      *why = "PostgreSQL server binaries (initdb, pg_ctl) are not installed (Debian package: postgresql)";
      return nullptr;
    }
    auto s = std::unique_ptr<PostgresTestServer>(new PostgresTestServer());
    s->bindir_ = bindir;
    char tmpl[] = "/tmp/cprof_pg_XXXXXX";
    if (!::mkdtemp(tmpl)) {
      *why = "mkdtemp failed";
      return nullptr;
    }
    s->dir_ = tmpl;
    if (::geteuid() == 0) {
      struct passwd* pw = ::getpwnam("postgres");
      if (!pw) {
        *why = "running as root and there is no 'postgres' user to run the server as";
        return nullptr;
      }
      s->as_postgres_ = true;
      if (::chown(s->dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0) {
        *why = "cannot chown " + s->dir_ + " to postgres";
        return nullptr;
      }
    }
    s->port_ = FreePort();
    std::string data = s->dir_ + "/data";
    ProcessResult init = s->Run({bindir + "/initdb", "-D", data, "-A", "trust", "-U", "postgres", "-E", "UTF8",
                                 "--no-sync", "--no-instructions"});
    if (init.exit_code != 0) {
      *why = "initdb failed: " + init.spawn_error + init.err + init.out;
      return nullptr;
    }
    s->opts_ = "-p " + std::to_string(s->port_) + " -k " + s->dir_ +
               " -c listen_addresses='' -c fsync=off -c max_connections=60";
    ProcessResult start = s->Run({bindir + "/pg_ctl", "-D", data, "-o", s->opts_, "-l",
                                  s->dir_ + "/server.log", "-w", "-t", "60", "start"});
    if (start.exit_code != 0) {
      *why = "pg_ctl start failed: " + start.spawn_error + start.err + start.out;
      return nullptr;
    }
    s->started_ = true;
    return s;
  }

  ~PostgresTestServer() {
    if (started_) Run({bindir_ + "/pg_ctl", "-D", dir_ + "/data", "-m", "immediate", "-w", "stop"});
    std::error_code ec;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
  }

  // Stops the server (its connections with it) and starts it again, as an administrator's restart
  // does; true when it is back.
  bool Restart() const {
    return Run({bindir_ + "/pg_ctl", "-D", dir_ + "/data", "-o", opts_, "-l", dir_ + "/server.log", "-m",
                "fast", "-w", "-t", "60", "restart"})
               .exit_code == 0;
  }

  // libpq URI over the private Unix socket.
  std::string url() const {
    return "postgresql:///postgres?host=" + dir_ + "&port=" + std::to_string(port_) + "&user=postgres";
  }

 private:
  PostgresTestServer() = default;

  // Through the shell, not RunProcess: a trial's supervisor kills the processes that leave its
  // group once the command ends, and the server pg_ctl starts is one.
  ProcessResult Run(std::vector<std::string> argv) const {
    if (as_postgres_) argv.insert(argv.begin(), {"runuser", "-u", "postgres", "--"});
    const std::string log = (dir_.empty() ? std::string("/tmp") : dir_) + "/command.out";
    std::string line = "cd /tmp && LC_ALL=C";
    for (const std::string& a : argv) line += " " + ShellQuote(a);
    line += " > " + ShellQuote(log) + " 2>&1";
    ProcessResult r;
    const int status = std::system(line.c_str());
    r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    std::ifstream in(log);
    r.out.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    return r;
  }

  // The newest /usr/lib/postgresql/<version>/bin (Debian), else initdb on the usual paths.
  static std::string FindBinDir() {
    std::vector<std::string> dirs;
    glob_t g;
    if (::glob("/usr/lib/postgresql/*/bin", 0, nullptr, &g) == 0) {
      for (size_t i = 0; i < g.gl_pathc; ++i) dirs.push_back(g.gl_pathv[i]);
      globfree(&g);
    }
    std::sort(dirs.begin(), dirs.end(), [](const std::string& a, const std::string& b) {
      return a.size() != b.size() ? a.size() > b.size() : a > b;  // "15" after "9": longer first
    });
    dirs.push_back("/usr/bin");
    dirs.push_back("/usr/local/bin");
    for (const std::string& d : dirs)
      if (::access((d + "/initdb").c_str(), X_OK) == 0 && ::access((d + "/pg_ctl").c_str(), X_OK) == 0) return d;
    return "";
  }

  static int FreePort() {
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = 0;
    socklen_t len = sizeof a;
    int port = 55432;
    if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
      port = ntohs(a.sin_port);
    if (fd >= 0) ::close(fd);
    return port;
  }

  std::string bindir_, dir_;
  std::string opts_;  // the server's options, for a restart
  int port_ = 0;
  bool as_postgres_ = false;
  bool started_ = false;
};

}  // namespace cprof::tune
