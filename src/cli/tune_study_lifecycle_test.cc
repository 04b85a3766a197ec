// A tune study's life through the real binary: resume after kill -9 with nothing lost or
// repeated, kill -9 ending the running trial, Ctrl-C stopping it and the rerun running it, the
// rerun after a study stopped for its setup (an exit code or a crash), and two processes sharing
// one SQLite study.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <set>
#include <thread>

#include "cli/tune_command_test_util.h"

namespace cprof::cli {
namespace {

using namespace tune_test;  // NOLINT: the shared fixtures and helpers of the tune CLI tests

// The workload of the resume tests: logs every run, takes a moment, prints its objective.
struct Workload {
  fs::path dir;
  std::string space, log, db;
  std::vector<std::string> command;
};

Workload MakeWorkload(const std::string& name, double sleep_s) {
  Workload w;
  w.dir = TestDir(name);
  w.space = (w.dir / "space.yaml").string();
  w.log = (w.dir / "runs.log").string();
  w.db = (w.dir / "study.db").string();
  std::ofstream(w.space) << "parameters:\n  - {name: x, type: int, low: 0, high: 9}\n"
                            "  - {name: y, type: int, low: 0, high: 9}\n";
  w.command = {"/bin/sh",
               "-c",
               "echo \"$1,$2\" >> " + w.log + "; sleep " + std::to_string(sleep_s) +
                   "; echo \"{{\\\"ms\\\": $(( ($1-3)*($1-3) + ($2-6)*($2-6) + 1 ))}}\"",
               "sh",
               "{x}",
               "{y}"};
  return w;
}

// Starts the binary with `args` (args[0] is the binary) in the background, output discarded.
pid_t StartQuietly(std::vector<std::string> args) {
  const pid_t pid = ::fork();
  if (pid != 0) return pid;
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  int devnull = ::open("/dev/null", O_WRONLY);
  ::dup2(devnull, 1);
  ::dup2(devnull, 2);
  ::execv(kBinary.c_str(), argv.data());
  ::_exit(127);
}

std::vector<std::string> Lines(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream in(path);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

TEST(TuneCommandTest, ResumesAfterKill9WithNothingLostOrRepeated) {
  Workload w = MakeWorkload("resume", 0.3);
  std::vector<std::string> args = {kBinary,    "tune", "--space", w.space, "--storage",   "sqlite://" + w.db,
                                   "--budget", "12",   "--seed",  "1",     "--remeasure", "0",
                                   "--quiet",  "--"};
  args.insert(args.end(), w.command.begin(), w.command.end());
  // First run: killed with SIGKILL once a few trials are done.
  const pid_t pid = StartQuietly(args);
  ASSERT_GT(pid, 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (Lines(w.log).size() < 5 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  ::waitpid(pid, nullptr, 0);
  auto before = Trials(w.db);
  size_t done_before = 0;
  for (const auto& [k, s] : before) done_before += s == "complete";
  EXPECT_GE(done_before, 3u);
  EXPECT_LT(done_before, 12u) << "killed too late to test anything";
  std::this_thread::sleep_for(std::chrono::milliseconds(500));  // the orphaned trial finishes

  // The same command again: resumes.
  ProcessResult again =
      RunProcess(std::vector<std::string>(args.begin(), args.end()), {}, 600 * kNsPerS, "/tmp");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  auto after = Trials(w.db);
  std::set<std::string> keys;
  for (const auto& [k, s] : after) {
    EXPECT_EQ(s, "complete") << k;
    EXPECT_TRUE(keys.insert(k).second) << "configuration " << k << " recorded twice";
  }
  EXPECT_EQ(after.size(), 12u);
  // Every finished trial of the first run was kept (not rerun); only the one in flight at the kill
  // ran twice.
  for (size_t i = 0; i < before.size(); ++i) EXPECT_EQ(after[i].first, before[i].first);
  std::vector<std::string> runs = Lines(w.log);
  std::set<std::string> run_keys(runs.begin(), runs.end());
  EXPECT_EQ(run_keys, keys);
  EXPECT_LE(runs.size(), 12u + 1u);
}

// Ctrl-C: the signal reaches tune alone (trials run in their own process groups); tune passes it
// on, the running trial dies with its process group, tune dies of the signal, and the trial stays
// running in the study, so the same command runs it again.
// kill -9 of tune ends the running trial's processes too: an orphaned trial went on running (here
// for 60 s) beside the rerun that resumed the study, competing for the cores it measures on.
TEST(TuneCommandTest, Kill9EndsTheRunningTrialsProcesses) {
  fs::path dir = TestDir("kill9_orphans");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 0}\n";
  const std::string pids = (dir / "pids").string();
  // The command and a background child of it, both sleeping a minute.
  const pid_t tune =
      StartQuietly({kBinary, "tune", "--space", (dir / "space.yaml").string(), "--storage", "memory",
                    "--budget", "2", "--quiet", "--", "/bin/sh", "-c",
                    "sleep 60 & echo $! >> " + pids + "; echo $$ >> " + pids + "; wait", "sh", "{x}"});
  ASSERT_GT(tune, 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Lines(pids).size() < 2 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const std::vector<std::string> started = Lines(pids);
  ASSERT_EQ(started.size(), 2u);
  auto alive = [](const std::string& pid) {
    std::ifstream stat("/proc/" + pid + "/stat");
    std::string p, comm, state;
    return static_cast<bool>(stat >> p >> comm >> state) && state != "Z";
  };
  ASSERT_TRUE(alive(started[0]) && alive(started[1])) << started[0] << " " << started[1];
  ASSERT_EQ(::kill(tune, SIGKILL), 0);
  ::waitpid(tune, nullptr, 0);
  deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((alive(started[0]) || alive(started[1])) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto stat = [](const std::string& pid) {  // what a failure shows: "1234 (sleep) S 1 ..." or nothing
    std::ifstream in("/proc/" + pid + "/stat");
    std::string line;
    std::getline(in, line);
    return line.substr(0, 60);
  };
  EXPECT_FALSE(alive(started[0])) << "the trial's background sleep outlived tune: " << stat(started[0]);
  EXPECT_FALSE(alive(started[1])) << "the trial's shell outlived tune: " << stat(started[1]);
}

// Starts `tune` (args), waits for its first trial to write its shell's pid as the first word of a
// line of `log`, sends tune SIGINT, and checks that tune ends by it within `within` and that the
// trial's shell does not outlive it.
void InterruptTheFirstTrial(const std::vector<std::string>& args, const std::string& log,
                            std::chrono::seconds within) {
  const pid_t pid = StartQuietly(args);
  ASSERT_GT(pid, 0);
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (Lines(log).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_EQ(Lines(log).size(), 1u);
  const pid_t trial = std::stoi(Lines(log)[0]);
  const auto sent = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(pid, SIGINT), 0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_LT(std::chrono::steady_clock::now() - sent, within) << "tune waited for the trial";
  EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGINT) << status;
  // `trace` run in this process earlier (TraceCommandTest) made it a child subreaper, so the
  // trial's shell, once orphaned, is this process's child: a zombie here until reaped, which
  // kill(pid, 0) still finds.
  bool trial_gone = false;
  for (int i = 0; i < 100 && !trial_gone; ++i, std::this_thread::sleep_for(std::chrono::milliseconds(20))) {
    ::waitpid(trial, nullptr, WNOHANG);
    trial_gone = ::kill(trial, 0) != 0;
  }
  EXPECT_TRUE(trial_gone) << "the trial's shell " << trial << " outlived tune";
}

TEST(TuneCommandTest, InterruptStopsTheRunningTrialAndTheRerunRunsIt) {
  Workload w = MakeWorkload("interrupt", 0);
  const std::string sleep_file = (w.dir / "sleep_s").string();
  w.command = {"/bin/sh", "-c",
               "echo \"$$ $1\" >> " + w.log + "; sleep $(cat " + sleep_file + "); echo \"{{\\\"ms\\\": $1}}\"",
               "sh", "{x}"};
  std::ofstream(w.space) << "parameters:\n  - {name: x, type: int, low: 0, high: 9}\n";
  std::ofstream(sleep_file) << "30\n";
  std::vector<std::string> args = {kBinary, "tune",  "--space", w.space,      "--storage",  "sqlite://" + w.db,
                                   "--study", "intr", "--budget", "3",        "--remeasure", "0",
                                   "--quiet", "--"};
  args.insert(args.end(), w.command.begin(), w.command.end());
  InterruptTheFirstTrial(args, w.log, std::chrono::seconds(10));
  auto before = Trials(w.db);
  ASSERT_EQ(before.size(), 1u);
  EXPECT_EQ(before[0].second, "running");

  std::ofstream(sleep_file) << "0\n";
  ProcessResult again = RunProcess(std::vector<std::string>(args.begin(), args.end()), {}, 600 * kNsPerS, "/tmp");
  EXPECT_EQ(again.exit_code, 0) << again.err;
  auto after = Trials(w.db);
  ASSERT_EQ(after.size(), 3u);
  EXPECT_EQ(after[0].first, before[0].first);
  for (const auto& [k, st] : after) EXPECT_EQ(st, "complete") << k;
  EXPECT_EQ(Lines(w.log).size(), 4u) << "the interrupted trial runs again, the others once";
}

// A trial that ignores SIGTERM is killed 2 s after Ctrl-C, as on a timeout: tune waited for it
// however long it ran.
TEST(TuneCommandTest, InterruptKillsATrialThatIgnoresSigterm) {
  Workload w = MakeWorkload("interrupt_stubborn", 0);
  // Ignored signals stay ignored across exec: sleep ignores them too.
  w.command = {"/bin/sh", "-c", "trap '' TERM INT HUP; echo \"$$\" >> " + w.log + "; sleep 60; echo '{{\"ms\": 1}}'",
               "sh", "{x}"};
  std::ofstream(w.space) << "parameters:\n  - {name: x, type: int, low: 0, high: 9}\n";
  std::vector<std::string> args = {kBinary, "tune",  "--space", w.space, "--storage",  "sqlite://" + w.db,
                                   "--study", "intr", "--budget", "2",   "--remeasure", "0",
                                   "--quiet", "--"};
  args.insert(args.end(), w.command.begin(), w.command.end());
  InterruptTheFirstTrial(args, w.log, std::chrono::seconds(15));
}

// The study stops (exit 2) when its first 3 trials, the default among them, time out alike; the
// advice is a longer --timeout and a rerun. That rerun used to resume with the 3 kept as failed:
// the default never ran again (no baseline) and 3 of the budget were gone. They are reopened
// instead: the rerun runs them, the default first, and the whole budget.
TEST(TuneCommandTest, AStudyStoppedByItsSetupRerunsThoseTrialsAfterTheFix) {
  Workload w = MakeWorkload("setup_fixed", 0.6);
  std::ofstream(w.space) << "parameters:\n  - {name: x, type: int, low: 0, high: 9, default: 3}\n"
                            "  - {name: y, type: int, low: 0, high: 9, default: 6}\n";
  auto run = [&](const std::string& timeout) {
    std::vector<std::string> args = {kBinary,   "tune", "--space", w.space, "--storage", "sqlite://" + w.db,
                                     "--budget", "5",   "--seed",  "1",     "--remeasure", "0",
                                     "--report", "",    "--timeout", timeout, "--"};
    args.insert(args.end(), w.command.begin(), w.command.end());
    return RunProcess(args, {}, 600 * kNsPerS, "/tmp");
  };
  ProcessResult r = run("300ms");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("the rerun that resumes the study runs these 3 trials again"), std::string::npos) << r.err;
  std::vector<std::pair<std::string, std::string>> stopped = Trials(w.db);
  ASSERT_EQ(stopped.size(), 3u);
  for (const auto& [key, state] : stopped) EXPECT_EQ(state, "running") << key;

  r = run("5s");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("5 evaluations (0 failed), 0 infeasible, 0 resumed"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("default  failed"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("default  ms = 1"), std::string::npos) << r.out;  // (3, 6): the baseline ran
  std::vector<std::pair<std::string, std::string>> after = Trials(w.db);
  ASSERT_EQ(after.size(), 5u);
  for (size_t i = 0; i < 3; ++i) EXPECT_EQ(after[i].first, stopped[i].first);
  for (const auto& [key, state] : after) EXPECT_EQ(state, "complete") << key;
}

// A command killed by the same signal on its first trials, the default among them (a library
// that segfaults on load), stops the study as an exit code does: it spent the whole budget and
// the rerun after the fix found every trial failed.
TEST(TuneCommandTest, AStudyWhoseCommandCrashesEveryTimeStopsAndRerunsAfterTheFix) {
  Workload w = MakeWorkload("crash_fixed", 0.0);
  std::ofstream(w.space) << "parameters:\n  - {name: x, type: int, low: 0, high: 9, default: 3}\n"
                            "  - {name: y, type: int, low: 0, high: 9, default: 6}\n";
  const std::string fixed = (w.dir / "FIXED").string();
  w.command[2] = "test -e " + fixed + " || kill -SEGV $$; " + w.command[2];
  std::vector<std::string> args = {kBinary,   "tune", "--space", w.space,   "--storage", "sqlite://" + w.db,
                                   "--budget", "8",   "--seed",  "1",       "--remeasure", "0",
                                   "--report", "",    "--"};
  args.insert(args.end(), w.command.begin(), w.command.end());
  ProcessResult r = RunProcess(args, {}, 600 * kNsPerS, "/tmp");
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("failed the same way: killed by signal 11"), std::string::npos) << r.err;
  EXPECT_EQ(Trials(w.db).size(), 3u);
  std::ofstream(fixed) << "";
  r = RunProcess(args, {}, 600 * kNsPerS, "/tmp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("8 evaluations (0 failed)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("default  ms = 1"), std::string::npos) << r.out;
}

// A study resumed after its space's default changed runs the new default: the resumed study had
// no baseline, and said nothing of it.
TEST(TuneCommandTest, AResumedStudyRunsAChangedDefault) {
  Workload w = MakeWorkload("default_changed", 0.0);
  auto run = [&](int x_default, const std::string& budget) {
    std::ofstream(w.space) << "parameters:\n  - {name: x, type: int, low: 0, high: 9, default: " << x_default
                           << "}\n  - {name: y, type: int, low: 0, high: 9, default: 6}\n";
    std::vector<std::string> args = {kBinary,   "tune",  "--space", w.space,   "--storage", "sqlite://" + w.db,
                                     "--study",  "s",     "--budget", budget,   "--seed", "1", "--remeasure", "0",
                                     "--report", "",      "--"};
    args.insert(args.end(), w.command.begin(), w.command.end());
    return RunProcess(args, {}, 600 * kNsPerS, "/tmp");
  };
  ProcessResult r = run(3, "3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("default  ms = 1"), std::string::npos) << r.out;
  r = run(5, "5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("default  ms = 5"), std::string::npos) << r.out;  // (5, 6): (5-3)^2 + 1
  std::vector<std::pair<std::string, std::string>> trials = Trials(w.db);
  ASSERT_EQ(trials.size(), 5u);
  EXPECT_NE(trials[3].first.find("5"), std::string::npos) << trials[3].first;  // the first trial of the rerun
  // Changed again with the budget spent: no trial for it, and the summary says so (it printed no
  // default line, and "the best and the default were measured again").
  r = run(7, "5");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(
      r.out.find("default  not measured (x=7 y=6): the study had its 5 evaluations before it could run; a "
                 "larger --budget runs it"),
      std::string::npos)
      << r.out;
  EXPECT_EQ(Trials(w.db).size(), 5u);
  // A smaller budget than the study has: nothing runs, and the summary says why.
  r = run(7, "3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("the study already had 5 evaluations, more than --budget 3: none was run"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(Trials(w.db).size(), 5u);
}

TEST(TuneCommandTest, TwoProcessesShareOneSqliteStudy) {
  Workload w = MakeWorkload("two", 0.05);
  std::vector<std::string> args = {
      kBinary,       "tune",   "--space",  w.space, "--storage", "sqlite://" + w.db,
      "--study",     "shared", "--budget", "16",    "--workers", "2",
      "--remeasure", "0",      "--quiet",  "--seed"};
  auto run = [&](const std::string& seed, ProcessResult* r) {
    std::vector<std::string> a = args;
    a.push_back(seed);
    a.push_back("--");
    a.insert(a.end(), w.command.begin(), w.command.end());
    *r = RunProcess(a, {}, 600 * kNsPerS, "/tmp");
  };
  ProcessResult ra, rb;
  std::thread a(run, "1", &ra), b(run, "2", &rb);
  a.join();
  b.join();
  EXPECT_EQ(ra.exit_code, 0) << ra.err;
  EXPECT_EQ(rb.exit_code, 0) << rb.err;
  auto trials = Trials(w.db);
  std::set<std::string> keys;
  for (const auto& [k, s] : trials) {
    EXPECT_EQ(s, "complete");
    EXPECT_TRUE(keys.insert(k).second) << "configuration " << k << " evaluated twice";
  }
  EXPECT_GE(trials.size(), 16u);
  EXPECT_LE(trials.size(), 16u + 3u);
  std::vector<std::string> runs = Lines(w.log);
  EXPECT_EQ(runs.size(), trials.size()) << "a configuration ran in both processes";
}

}  // namespace
}  // namespace cprof::cli
