// `trace --duration` with and without --kill: whether trace waits for a target still running.
#include <spawn.h>
#include <sys/wait.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <thread>

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"

namespace cprof::cli {
namespace {

using namespace cli_test;
namespace fs = std::filesystem;

double SecondsOf(const std::vector<std::string>& args, Result* r) {
  auto t0 = std::chrono::steady_clock::now();
  *r = RunArgs(args);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

TEST(TraceCommandTest, KillStopsATargetStillRunningAfterTheDuration) {
  fs::path dir = TestDir("trace_kill");
  const std::string pb = (dir / "server.pb").string();
  Result r;
  double secs = SecondsOf({"trace", "--duration", "300ms", "--kill", "term", "-o", pb, "--", "sleep", "20"}, &r);
  EXPECT_EQ(r.code, 128 + SIGTERM) << r.err;  // the target's own end: killed by SIGTERM
  EXPECT_LT(secs, 10) << "trace waited for the target";
  EXPECT_TRUE(fs::exists(pb)) << r.err;
  EXPECT_NE(r.err.find("sent --kill term"), std::string::npos) << r.err;
}

// A wrapper passes no signal on: --kill reached the shell alone and its child ran on, orphaned.
TEST(TraceCommandTest, KillReachesTheProcessesTheTargetStarted) {
  fs::path dir = TestDir("trace_kill_tree");
  const std::string pb = (dir / "t.pb").string(), pidfile = (dir / "child.pid").string();
  Result r;
  double secs = SecondsOf({"trace", "--duration", "500ms", "--kill", "term", "-o", pb, "--", "/bin/sh", "-c",
                           "sleep 30 & echo $! > " + pidfile + "; wait"},
                          &r);
  EXPECT_LT(secs, 10) << "trace waited for the target";
  std::ifstream in(pidfile);
  pid_t child = 0;
  ASSERT_TRUE(in >> child) << r.err;
  bool gone = false;
  for (int i = 0; i < 100 && !gone; ++i) {
    // A zombie (it died, not yet reaped by its new parent) counts as gone.
    std::ifstream stat("/proc/" + std::to_string(child) + "/stat");
    std::string line;
    gone = !std::getline(stat, line) || line.find(") Z ") != std::string::npos;
    if (!gone) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(gone) << "the target's child " << child << " outlived --kill";
  if (!gone) ::kill(child, SIGKILL);
}

// Chrome JSON has no form for CPU samples: `trace -o x.json` said "100 samples" and wrote none.
TEST(TraceCommandTest, ChromeJsonOutputSaysItLeavesTheSamplesOut) {
  fs::path dir = TestDir("trace_json");
  const std::string json = (dir / "t.json").string();
  Result r = RunArgs({"trace", "--sampling_rate", "999Hz", "-o", json, "--", "/bin/sh", "-c",
                      "i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done"});
  ASSERT_EQ(r.code, 0) << r.err;
  const size_t at = r.err.find(" slices, ");
  ASSERT_NE(at, std::string::npos) << r.err;
  const long samples = std::stol(r.err.substr(at + 9));
  if (samples > 0) {
    EXPECT_NE(r.err.find("warning: " + std::to_string(samples) + " CPU samples (with their stacks) are not in " + json),
              std::string::npos)
        << r.err;
  } else {
    EXPECT_EQ(r.err.find("CPU samples"), std::string::npos) << r.err;
  }
}

// --pid: the trace names the process by its command line, read when attaching (it said "pid N").
TEST(TraceCommandTest, AnAttachedProcessIsNamedByItsCommandLine) {
  fs::path dir = TestDir("trace_attach");
  const std::string pb = (dir / "a.pb").string();
  pid_t pid = 0;
  const char* argv[] = {"/bin/sleep", "7", nullptr};
  ASSERT_EQ(posix_spawn(&pid, argv[0], nullptr, nullptr, const_cast<char**>(argv), environ), 0);
  // posix_spawn returns while execve is still setting up the new image, whose cmdline reads empty
  // until it is done: a process one attaches to in earnest has long been running.
  for (int i = 0; i < 200; ++i) {
    std::ifstream cmdline("/proc/" + std::to_string(pid) + "/cmdline");
    std::string first;
    if (std::getline(cmdline, first, '\0') && first == "/bin/sleep") break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  Result r = RunArgs({"trace", "--pid", std::to_string(pid), "--duration", "300ms", "-o", pb});
  ::kill(pid, SIGKILL);
  ::waitpid(pid, nullptr, 0);
  ASSERT_EQ(r.code, 0) << r.err;
  Result info = RunArgs({"info", pb});
  EXPECT_NE(info.out.find("command_line       /bin/sleep 7"), std::string::npos) << info.out;
}

// --sampling_rate 50% keeps half the operators: the trace says so and summary warns that counts are
// of the kept ones (it showed 20 aten::mm where 40 ran, and said nothing).
TEST(TraceCommandTest, AnOperatorShareIsRecordedAndSummarySaysSo) {
  fs::path dir = TestDir("trace_share");
  const std::string pb = (dir / "s.pb").string();
  Result r = RunArgs({"trace", "--sampling_rate", "50%", "-o", pb, "--", "/bin/true"});
  ASSERT_EQ(r.code, 0) << r.err;
  Result s = RunArgs({"summary", pb});
  EXPECT_NE(s.out.find("sampled     50% of the operators were kept"), std::string::npos) << s.out;
  EXPECT_NE(s.out.find("op_event_fraction     0.5"), std::string::npos) << s.out;
  Result all = RunArgs({"trace", "-o", pb, "--", "/bin/true"});
  ASSERT_EQ(all.code, 0) << all.err;
  EXPECT_EQ(RunArgs({"summary", pb}).out.find("sampled  "), std::string::npos);
}

// A --time_range that starts after the run ended keeps nothing; the empty trace said nothing of why.
TEST(TraceCommandTest, AWindowAfterTheRunSaysSo) {
  fs::path dir = TestDir("trace_window");
  const std::string pb = (dir / "w.pb").string();
  Result late = RunArgs({"trace", "--time_range", "30s:40s", "-o", pb, "--", "/bin/true"});
  ASSERT_EQ(late.code, 0) << late.err;
  EXPECT_NE(late.err.find("warning: --time_range starts at 30.000 s, after the run's "), std::string::npos) << late.err;
  Result inside = RunArgs({"trace", "--time_range", "0s:40s", "-o", pb, "--", "/bin/true"});
  ASSERT_EQ(inside.code, 0) << inside.err;
  EXPECT_EQ(inside.err.find("--time_range starts at"), std::string::npos) << inside.err;
}

// Traces `/usr/bin/python3 -c script` (framework scope) and returns, as CSV, the distinct names of
// its thread tracks LIKE `like`, in order.
std::string TracedThreadNames(const std::string& script, const std::string& like) {
  fs::path dir = TestDir("trace_names");
  const std::string pb = (dir / "t.pb").string();
  // In-process, the runtime is found beside this test, not beside cann-profiler.
  ::setenv("CPROF_RUNTIME_DIR", CPROF_BINARY_DIR "/runtime", 1);
  Result r = RunArgs({"trace", "--scope", "framework", "-o", pb, "--", "/usr/bin/python3", "-c", script});
  ::unsetenv("CPROF_RUNTIME_DIR");
  EXPECT_EQ(r.code, 0) << r.err;
  Result q = RunArgs({"query", pb,
                      "SELECT DISTINCT name FROM track WHERE kind = 'thread' AND name LIKE '" + like + "' ORDER BY name",
                      "--format", "csv"});
  EXPECT_EQ(q.code, 0) << q.err;
  return q.out;
}

// Threads started from Python are named as Python named them: three `worker-N` threads all read
// "python3", the kernel's name for them.
TEST(TraceCommandTest, PythonThreadsCarryTheirThreadingNames) {
  EXPECT_EQ(TracedThreadNames("import threading\n"
                              "def work():\n    sum(range(300000))\n"
                              "ts = [threading.Thread(target=work, name='worker-%d' % i) for i in range(3)]\n"
                              "[t.start() for t in ts]; [t.join() for t in ts]\n",
                              "worker-%"),
            "name\nworker-0\nworker-1\nworker-2\n");
}

// DataLoader worker processes carry their worker number; they never name themselves, and each
// read "python3", as their parent.
TEST(TraceCommandTest, DataLoaderWorkersAreNamed) {
  EXPECT_EQ(TracedThreadNames("import torch\n"
                              "from torch.utils.data import DataLoader, TensorDataset\n"
                              "data = TensorDataset(torch.arange(64.0).reshape(32, 2))\n"
                              "for (x,) in DataLoader(data, batch_size=4, num_workers=2):\n    x.sum()\n",
                              "DataLoader worker%"),
            "name\nDataLoader worker 0\nDataLoader worker 1\n");
}

// A secret on the command line stays out of the trace: in command_line and in the Python shim's
// python_argv alike (both were recorded in clear).
TEST(TraceCommandTest, SecretOptionsAreRedactedInBothCommandLines) {
  fs::path dir = TestDir("trace_secret");
  const std::string pb = (dir / "s.pb").string();
  ::setenv("CPROF_RUNTIME_DIR", CPROF_BINARY_DIR "/runtime", 1);
  Result r = RunArgs({"trace", "-o", pb, "--", "/usr/bin/python3", "-c", "pass", "--token", "tok1", "--lr", "1"});
  ::unsetenv("CPROF_RUNTIME_DIR");
  ASSERT_EQ(r.code, 0) << r.err;
  Result info = RunArgs({"info", pb});
  EXPECT_EQ(info.out.find("tok1"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("python_argv        -c --token <redacted> --lr 1"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("--token '<redacted>' --lr 1"), std::string::npos) << info.out;
}

TEST(TraceCommandTest, WithoutKillTraceWaitsForTheTargetAndReturnsItsCode) {
  fs::path dir = TestDir("trace_wait");
  const std::string pb = (dir / "t.pb").string();
  Result r;
  double secs =
      SecondsOf({"trace", "--duration", "200ms", "-o", pb, "--", "/bin/sh", "-c", "sleep 1.5; exit 3"}, &r);
  EXPECT_EQ(r.code, 3) << r.err;
  EXPECT_GE(secs, 1.4);
  EXPECT_TRUE(fs::exists(pb)) << r.err;
}

TEST(TraceCommandTest, KillNeedsDurationAndAKnownSignal) {
  Result r = RunArgs({"trace", "--kill", "term", "-o", "/dev/null", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--kill term: only with --duration"), std::string::npos) << r.err;
  r = RunArgs({"trace", "--pid", "1", "--duration", "1s", "--kill", "term", "-o", "/dev/null"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("not --pid"), std::string::npos) << r.err;
  r = RunArgs({"trace", "--duration", "1s", "--kill", "hup", "-o", "/dev/null", "--", "true"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("unknown signal 'hup' (none, term, int, kill)"), std::string::npos) << r.err;
}

// Bad durations name the flag and suggest a unit, before anything runs.
TEST(TraceCommandTest, DurationErrorsNameTheFlagAndSuggestAUnit) {
  const std::pair<std::vector<std::string>, std::string> kCases[] = {
      {{"--duration", "5"}, "--duration: '5' is not a duration: give a unit, e.g. 5s or 5ms"},
      {{"--time_range", "2:"}, "--time_range: '2' is not a duration: give a unit, e.g. 2s or 2ms"},
      {{"--trigger", "p99_latency>200ms over 10"}, "--trigger 'p99_latency>200ms over 10': over: '10' is not a duration"},
  };
  for (const auto& [flags, expected] : kCases) {
    std::vector<std::string> args = {"trace", "-o", "/dev/null"};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", "true"});
    Result r = RunArgs(args);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_NE(r.err.find(expected), std::string::npos) << r.err;
  }
}

TEST(TraceCommandTest, AnOutputThatCannotBeCreatedFailsBeforeTheTargetStarts) {
  fs::path dir = TestDir("trace_noout");
  const std::string folder = (dir / "no_such_folder").string();
  const std::string missing = folder + "/x.pb";  // with --trigger: x.trigger1.pb beside it
  for (const std::vector<std::string>& flags :
       {std::vector<std::string>{}, std::vector<std::string>{"--trigger", "p99_latency>200ms"}}) {
    std::vector<std::string> args = {"trace", "-o", missing};
    args.insert(args.end(), flags.begin(), flags.end());
    args.insert(args.end(), {"--", "sleep", "5"});
    Result r;
    double secs = SecondsOf(args, &r);
    EXPECT_EQ(r.code, 2) << r.err;
    EXPECT_LT(secs, 2) << "the target ran before the output was checked";
    EXPECT_NE(r.err.find("in folder " + folder), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("No such file or directory"), std::string::npos) << r.err;
  }
  Result r = RunArgs({"trace", "-o", dir.string(), "--format", "pb", "--", "true"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("it is a folder"), std::string::npos) << r.err;
  EXPECT_TRUE(fs::is_empty(dir)) << "the probe left a temporary file";
}

}  // namespace
}  // namespace cprof::cli
