// The trial runner on real processes: substitution, environment, metrics, failures, timeouts.
#include "tune/trial_runner.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "tune/space_file.h"

namespace cprof::tune {
namespace {

SearchSpace Space() {
  auto f = ParseSpaceYaml(R"(
parameters:
  - {name: threads, type: int, low: 1, high: 8}
  - {name: fmt, type: categorical, values: [nchw, "channels last"]}
)", "t.yaml");
  EXPECT_TRUE(f.ok());
  return std::move(f).value().space;
}

EvalResult RunSpec(CommandSpec spec, std::map<std::string, std::string> params = {{"threads", "4"}, {"fmt", "nchw"}}) {
  SearchSpace space = Space();
  auto runner = TrialRunner::Create(std::move(spec), space);
  EXPECT_TRUE(runner.ok()) << runner.status().message();
  Rng rng(1);
  return (*runner)->Evaluate(params, rng);
}

TEST(TrialRunnerTest, Substitution) {
  std::map<std::string, std::string> p = {{"a", "1"}, {"b", "x y"}};
  EXPECT_EQ(*SubstituteParams("--a={a} {b}", p), "--a=1 x y");
  EXPECT_EQ(*SubstituteParams("{{literal}} {a}", p), "{literal} 1");
  EXPECT_FALSE(SubstituteParams("{c}", p).ok());
  EXPECT_EQ(SubstituteParams("{c}", p).status().message(), "'{c}': no parameter named 'c'");
  // A JSON snippet with single braces: the error says how to write them.
  EXPECT_EQ(SubstituteParams("echo {\"t\": 1}", p).status().message(),
            "'echo {\"t\": 1}': no parameter named '\"t\": 1' (write a literal brace as {{ or }})");
  EXPECT_FALSE(SubstituteParams("{a", p).ok());
}

TEST(TrialRunnerTest, ArgumentsAreAVectorAndEnvironmentIsSubstituted) {
  CommandSpec spec;
  // No shell: the value with a space stays one argument; $X is not expanded.
  spec.argv = {"/bin/sh", "-c", "printf '{{\"n\": %s, \"argc\": %s, \"env\": %s}}\\n' \"$1\" \"$#\" \"$OMP_NUM_THREADS\"", "sh",
               "{threads}", "{fmt}"};
  spec.env = {{"OMP_NUM_THREADS", "{threads}"}};
  EvalResult r = RunSpec(spec, {{"threads", "4"}, {"fmt", "channels last"}});
  ASSERT_EQ(r.state, TrialState::kComplete) << r.reason;
  EXPECT_EQ(r.metrics.at("n"), 4);
  EXPECT_EQ(r.metrics.at("argc"), 2);
  EXPECT_EQ(r.metrics.at("env"), 4);
}

TEST(TrialRunnerTest, LastJsonLineWinsAndRegexReads) {
  CommandSpec spec;
  spec.argv = {"/bin/sh", "-c",
               "echo '{{\"latency_ms\": 99}}'; echo 'noise'; echo 'throughput: 7.5 it/s'; "
               "echo '{{\"latency_ms\": 12.5, \"mem_mb\": 800, \"name\": \"x\"}}'; echo done"};
  spec.regex = {{"throughput", "throughput: ([0-9.]+)"}};
  EvalResult r = RunSpec(spec);
  ASSERT_EQ(r.state, TrialState::kComplete) << r.reason;
  EXPECT_EQ(r.metrics.at("latency_ms"), 12.5);
  EXPECT_EQ(r.metrics.at("mem_mb"), 800);
  EXPECT_EQ(r.metrics.at("throughput"), 7.5);
  EXPECT_EQ(r.metrics.count("name"), 0u);
}

TEST(TrialRunnerTest, FailuresCarryTheReason) {
  CommandSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo 'CUDA out of memory' >&2; exit 3"};
  EvalResult r = RunSpec(spec);
  EXPECT_EQ(r.state, TrialState::kFailed);
  EXPECT_NE(r.reason.find("exit code 3"), std::string::npos);
  EXPECT_NE(r.reason.find("out of memory"), std::string::npos);
  EXPECT_TRUE(r.exit_error);  // a non-zero exit with a message

  spec.argv = {"/bin/sh", "-c", "kill -SEGV $$"};
  r = RunSpec(spec);
  EXPECT_EQ(r.state, TrialState::kFailed);
  EXPECT_NE(r.reason.find("signal 11"), std::string::npos);
  EXPECT_TRUE(r.exit_error);  // a crash: the same one from the start stops the study

  spec.argv = {"/bin/false"};  // a silent exit: the same from the start stops the study too
  r = RunSpec(spec);
  EXPECT_EQ(r.reason, "exit code 1");
  EXPECT_TRUE(r.exit_error);

  spec.argv = {"/nonexistent/{fmt}"};  // a program named by a placeholder fails when it runs
  r = RunSpec(spec);
  EXPECT_EQ(r.state, TrialState::kFailed);
  EXPECT_NE(r.reason.find("cannot run"), std::string::npos);

  // A command that succeeds but prints no metrics is complete with none: whether that fails the
  // trial or stops the study is the tuner's to say (trial_outcome.h).
  spec.argv = {"/bin/echo", "no metrics here"};
  r = RunSpec(spec);
  EXPECT_EQ(r.state, TrialState::kComplete) << r.reason;
  EXPECT_TRUE(r.metrics.empty());
  EXPECT_FALSE(r.exit_error);
}

TEST(TrialRunnerTest, TimeoutKillsTheWholeProcessGroup) {
  auto dir = std::filesystem::temp_directory_path() / ("cprof_runner_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string pidfile = (dir / "child.pid").string();
  CommandSpec spec;
  // A background grandchild that would outlive a naive kill of the direct child.
  spec.argv = {"/bin/sh", "-c", "sleep 30 & echo $! > " + pidfile + "; wait"};
  spec.timeout_ns = 300 * kNsPerMs;
  auto start = std::chrono::steady_clock::now();
  EvalResult r = RunSpec(spec);
  double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.state, TrialState::kFailed);
  EXPECT_NE(r.reason.find("timed out"), std::string::npos);
  EXPECT_TRUE(r.timed_out);
  EXPECT_LT(took, 10.0);
  std::ifstream in(pidfile);
  pid_t grandchild = 0;
  in >> grandchild;
  ASSERT_GT(grandchild, 0);
  // Reaped by init eventually; it must at least be dead (or a zombie) now.
  bool gone = false;
  for (int i = 0; i < 50 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(grandchild) + "/stat");
    std::string pid, comm, state;
    gone = !(stat >> pid >> comm >> state) || state == "Z";
    if (!gone) usleep(20000);
  }
  EXPECT_TRUE(gone) << "the sleeping grandchild survived the timeout";
  std::filesystem::remove_all(dir);
}

// Whether process `pid` has ended (gone, or a zombie), waiting up to a second.
bool Ends(pid_t pid) {
  for (int i = 0; i < 50; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string p, comm, state;
    if (!(stat >> p >> comm >> state) || state == "Z") return true;
    usleep(20000);
  }
  return false;
}

// A process that left the trial's group with setsid() escaped the group's kill and ran on after
// the trial, on a timeout and after a normal exit alike; and after a timeout of a command that
// ignores SIGTERM, whose group's SIGKILL took the supervisor with it.
TEST(TrialRunnerTest, AProcessThatLeftTheGroupEndsWithTheTrial) {
  auto dir = std::filesystem::temp_directory_path() / ("cprof_setsid_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string deaf = "trap '' TERM; while :; do sleep 0.1; done";
  for (const std::string& end : {std::string("sleep 30"), deaf, std::string("exit 0"), std::string("exit 0"),
                                 std::string("exit 0"), std::string("exit 3")}) {
    const std::string pidfile = (dir / "escaped.pid").string();
    std::filesystem::remove(pidfile);
    CommandSpec spec;
    // No pause before the shell's end: the child calls setsid() after the shell has exited.
    spec.argv = {"/bin/sh", "-c", "setsid sleep 31 & echo $! > " + pidfile + "; " + end};
    spec.timeout_ns = 1500 * kNsPerMs;
    EvalResult r = RunSpec(spec);
    EXPECT_EQ(r.timed_out, end == "sleep 30" || end == deaf) << r.reason;
    if (end == "exit 3") {
      EXPECT_NE(r.reason.find("exit code 3"), std::string::npos) << r.reason;
    }
    pid_t escaped = 0;
    std::ifstream(pidfile) >> escaped;
    ASSERT_GT(escaped, 0) << end;
    EXPECT_TRUE(Ends(escaped)) << "the setsid'd process outlived the trial (" << end << ")";
    if (!Ends(escaped)) ::kill(escaped, SIGKILL);
  }
  std::filesystem::remove_all(dir);
}

// One --shell command line.
EvalResult RunShell(const std::string& text, std::map<std::string, std::string> params) {
  CommandSpec spec;
  spec.shell = true;
  spec.argv = {text};
  return RunSpec(std::move(spec), std::move(params));
}

TEST(TrialRunnerTest, ShellModeQuotesValues) {
  EvalResult r = RunShell("n={threads}; f={fmt}; echo \"{{\\\"n\\\": $n, \\\"len\\\": ${{#f}}}}\"",
                          {{"threads", "2"}, {"fmt", "channels last"}});
  ASSERT_EQ(r.state, TrialState::kComplete) << r.reason;
  EXPECT_EQ(r.metrics.at("n"), 2);
  EXPECT_EQ(r.metrics.at("len"), 13);
}

// With --shell a placeholder inside quotes is refused: the value comes in already quoted, and
// a value with a quote of the other kind ran a command of its own (`a"; touch x; echo "b`).
TEST(TrialRunnerTest, ShellModeRefusesPlaceholdersInsideQuotes) {
  const SearchSpace space = Space();
  auto create = [&](const std::string& text) {
    CommandSpec spec;
    spec.shell = true;
    spec.argv = {text};
    return TrialRunner::Create(spec, space).status();
  };
  for (const char* quoted : {"echo \"n={threads}\"", "echo 'x {fmt}'", "echo \"$(echo a) {fmt}\""}) {
    const Status st = create(quoted);
    ASSERT_FALSE(st.ok()) << quoted;
    EXPECT_NE(st.message().find("is inside"), std::string::npos) << st.message();
    EXPECT_NE(st.message().find("without quotes"), std::string::npos) << st.message();
  }
  // Bare, escaped braces in quotes, and a substitution inside double quotes are fine.
  for (const char* fine : {"echo n={threads} {fmt}", "echo \"{{}}\" {fmt}", "echo \"$(echo {fmt})\""})
    EXPECT_TRUE(create(fine).ok()) << fine << ": " << create(fine).message();
  // Written bare, a value that would run a command of its own stays one word.
  EvalResult r =
      RunShell("echo \"{{\\\"n\\\": 0}}\"; echo {fmt}", {{"threads", "1"}, {"fmt", "x; echo '{\"n\": 99}'"}});
  ASSERT_EQ(r.state, TrialState::kComplete) << r.reason;
  EXPECT_EQ(r.metrics.at("n"), 0);
}

// A conditional parameter that is inactive leaves out its argument and the flag before it (the
// program keeps its default), instead of failing the trial: a failure would cost an evaluation and
// teach the sampler that the parent's value (often the default) is bad.
TEST(TrialRunnerTest, InactiveParameterDropsItsArgumentAndFlag) {
  const std::vector<std::string> argv = {"bench", "-v", "--m", "{m}", "--n={n}", "--opt", "{opt}", "{m}"};
  EXPECT_EQ(SubstituteArguments(argv, {{"opt", "adam"}, {"n", "2"}}),
            std::vector<std::string>({"bench", "-v", "--n=2", "--opt", "adam"}));
  EXPECT_EQ(SubstituteArguments(argv, {{"opt", "sgd"}, {"m", "0.9"}}),
            std::vector<std::string>({"bench", "-v", "--m", "0.9", "--opt", "sgd", "0.9"}));
  // A flag goes once: with both inactive, `-v` (before `--m`) stays.
  EXPECT_EQ(SubstituteArguments({"-v", "--m", "{m}", "{n}"}, {}), std::vector<std::string>({"-v"}));

  auto f = ParseSpaceYaml(R"(
parameters:
  - {name: opt, type: categorical, values: [adam, sgd]}
  - {name: momentum, type: float, low: 0, high: 0.99, condition: "opt == 'sgd'"}
)",
                          "t.yaml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  CommandSpec spec;
  spec.argv = {"/bin/sh",    "-c",        "echo \"{{\\\"argc\\\": $#}}\"", "sh", "--opt", "{opt}",
               "--momentum", "{momentum}"};
  auto runner = TrialRunner::Create(spec, f->space);
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  Rng rng(1);
  EvalResult r = (*runner)->Evaluate({{"opt", "adam"}}, rng);
  ASSERT_EQ(r.state, TrialState::kComplete) << r.reason;
  EXPECT_EQ(r.metrics.at("argc"), 2);
  r = (*runner)->Evaluate({{"opt", "sgd"}, {"momentum", "0.5"}}, rng);
  ASSERT_EQ(r.state, TrialState::kComplete) << r.reason;
  EXPECT_EQ(r.metrics.at("argc"), 4);

  // With --shell the inactive parameter is the empty word.
  spec.shell = true;
  spec.argv = {"m={momentum}; echo \"{{\\\"len\\\": ${{#m}}}}\""};
  runner = TrialRunner::Create(spec, f->space);
  ASSERT_TRUE(runner.ok()) << runner.status().message();
  r = (*runner)->Evaluate({{"opt", "adam"}}, rng);
  ASSERT_EQ(r.state, TrialState::kComplete) << r.reason;
  EXPECT_EQ(r.metrics.at("len"), 0);
}

TEST(TrialRunnerTest, TemplatesAreCheckedAgainstTheSpace) {
  SearchSpace space = Space();
  CommandSpec spec;
  spec.argv = {"run", "--x={nope}"};
  auto r = TrialRunner::Create(spec, space);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("nope"), std::string::npos);
  EXPECT_FALSE(TrialRunner::Create(CommandSpec{}, space).ok());
}

// Each of these failed every trial of the study the same way; they are usage errors up front.
TEST(TrialRunnerTest, ACommandThatCannotRunOrARegexWithoutGroupIsAnErrorAtOnce) {
  SearchSpace space = Space();
  CommandSpec spec;
  spec.argv = {"pyhton3", "bench.py", "{threads}"};
  auto r = TrialRunner::Create(spec, space);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(r.status().message(), "command 'pyhton3': not found on PATH");
  spec.argv = {"/nonexistent/binary"};
  r = TrialRunner::Create(spec, space);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(), "command '/nonexistent/binary': No such file or directory");
  spec.argv = {"/tmp"};
  EXPECT_NE(TrialRunner::Create(spec, space).status().message().find("not an executable"), std::string::npos);
  spec.argv = {"sh", "-c", "echo 'latency: 3 ms'"};
  EXPECT_TRUE(TrialRunner::Create(spec, space).ok());  // found on PATH
  spec.regex = {{"lat", "latency: [0-9]+ ms"}};
  r = TrialRunner::Create(spec, space);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no group"), std::string::npos);
  spec.shell = true;  // shell text: the shell finds the program
  spec.regex.clear();
  spec.argv = {"pyhton3 bench.py"};
  EXPECT_TRUE(TrialRunner::Create(spec, space).ok());
}

}  // namespace
}  // namespace cprof::tune
