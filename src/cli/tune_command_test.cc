// `cann-profiler tune` through the real binary: the HTML report, the CLI contract,
// trace objectives, --from_diagnosis and the summary, and the cann-auto-tune name. A study's
// life (kill -9, signals, two processes on one study): tune_study_lifecycle_test.cc; reading the
// objective from the output: tune_objective_test.cc; replays: tune_replay_command_test.cc.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "cli/cli_test_util.h"
#include "cli/tune_command_test_util.h"
#include "tune/trial_runner.h"

namespace cprof::cli {
namespace {

using namespace tune_test;  // NOLINT: the shared fixtures and helpers of the tune CLI tests

TEST(TuneCommandTest, ReportIsAnHtmlPageWithTheCurveAndImportance) {
  fs::path dir = TestDir("report");
  const std::string html = (dir / "study.html").string();
  ProcessResult r =
      Tune({"--replay", kPnpoly, "--budget", "20", "--seed", "3", "--json", "--quiet", "--report", html});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string page = ReadText(html);
  ASSERT_FALSE(page.empty()) << "no report at " << html;
  auto count = [&](const std::string& what) {
    size_t n = 0;
    for (size_t p = page.find(what); p != std::string::npos; p = page.find(what, p + 1)) ++n;
    return n;
  };
  nlohmann::json j = LastJsonLine(r.out);
  const size_t failed = j["failed"].get<size_t>();
  EXPECT_EQ(count("<circle class=\"trial\""), 20u - failed) << "one dot per complete trial";
  EXPECT_EQ(count("class=\"failed\""), failed) << "one cross per failed trial";
  EXPECT_NE(page.find("Best: trial " + std::to_string(j["best_trial"].get<int64_t>())), std::string::npos);
  EXPECT_NE(page.find("Parameter importance"), std::string::npos);
  EXPECT_NE(page.find(">block_size_x<"), std::string::npos);
  EXPECT_EQ(page.find("<script"), std::string::npos);
  // A report that cannot be written is an error, and nothing is left behind.
  ProcessResult bad =
      Tune({"--replay", kPnpoly, "--budget", "3", "--quiet", "--report", "/nonexistent/dir/x.html"});
  EXPECT_EQ(bad.exit_code, 2) << bad.err;
  EXPECT_NE(bad.err.find("/nonexistent/dir/x.html"), std::string::npos) << bad.err;
  // Without --report the study writes tune_report.html where it runs, and says so; --report ""
  // writes none.
  fs::path here = TestDir("report_default");
  r = Tune({"--replay", kPnpoly, "--budget", "3"}, here.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::is_regular_file(here / "tune_report.html"));
  EXPECT_NE(r.err.find("tuning report written to tune_report.html"), std::string::npos) << r.err;
  fs::remove(here / "tune_report.html");
  r = Tune({"--replay", kPnpoly, "--budget", "3", "--report", ""}, here.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_FALSE(fs::exists(here / "tune_report.html"));
}

// Several objectives: the terminal and --json gave the Pareto front, the report did not.
TEST(TuneCommandTest, ReportShowsTheParetoFrontOfSeveralObjectives) {
  fs::path dir = TestDir("pareto_report");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 0}\n";
  // ms falls with x, mb rises with it: every x is on the front.
  ProcessResult r =
      Tune({"--space",     "space.yaml",
            "--objective", "ms:min,mb:min",
            "--budget",    "4",
            "--storage",   "memory",
            "--remeasure", "0",
            "--quiet",     "--json",
            "--report",    "study.html",
            "--",          "/bin/sh",
            "-c",          "echo \"{{\\\"ms\\\": $(( 10 - $1 )), \\\"mb\\\": $(( 100 + $1 ))}}\"",
            "sh",          "{x}"},
           dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(LastJsonLine(r.out)["pareto_front"].size(), 4u);
  const std::string page = cli_test::ReadFile(dir / "study.html");
  ASSERT_NE(page.find("<h2>Pareto front</h2>"), std::string::npos) << page;
  EXPECT_NE(page.find("<th>ms (min)</th><th>mb (min)</th>"), std::string::npos);
  EXPECT_NE(page.find("<td>7</td><td>103</td><td class=\"l\"><code>x=3</code>"), std::string::npos);
}

// Without --objective the command's only metric is the objective, and --json names it.
TEST(TuneCommandTest, JsonNamesTheObjectiveItChoseItself) {
  fs::path dir = TestDir("only_metric");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 0}\n";
  // The best (x = 3) also prints a metric named before ms: the objective is still ms.
  ProcessResult r = Tune({"--space", "space.yaml", "--budget", "4", "--storage", "memory", "--quiet", "--json",
                          "--remeasure", "0", "--", "/bin/sh", "-c",
                          "if [ $1 = 3 ]; then echo '{{\"aaa\": 70, \"ms\": 7}}'; else echo \"{{\\\"ms\\\": $(( 10 - $1 ))}}\"; fi",
                          "sh", "{x}"},
                         dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = LastJsonLine(r.out);
  EXPECT_EQ(j["objective"], "ms:min") << r.out;
  EXPECT_EQ(j["best_value"], 7) << r.out;
  EXPECT_EQ(j["default_value"], 10) << r.out;
}

TEST(TuneCommandTest, ContractFlagsAndErrors) {
  // Both spellings of multi-word flags; durations with units.
  ProcessResult dash =
      Tune({"--replay", kPnpoly, "--budget", "5", "--replay-noise", "--no-default", "--quiet"});
  EXPECT_EQ(dash.exit_code, 0) << dash.err;
  ProcessResult under =
      Tune({"--replay", kPnpoly, "--budget", "5", "--replay_noise", "--time", "10m", "--quiet"});
  EXPECT_EQ(under.exit_code, 0) << under.err;
  EXPECT_NE(under.out.find("best"), std::string::npos);
  // Bad input: exit code 2 and one line naming the problem.
  // A duration without a unit names its flag.
  ProcessResult no_unit = Tune({"--replay", kPnpoly, "--time", "30"});
  EXPECT_EQ(no_unit.exit_code, 2);
  EXPECT_NE(no_unit.err.find("--time: '30' is not a duration"), std::string::npos) << no_unit.err;
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"--budget", "5", "--", "true"},                           // no space
           {"--replay", kPnpoly, "--sampler", "annealing"},           // unknown sampler
           {"--replay", kPnpoly, "--time", "30"},                     // duration without unit
           {"--replay", "/nonexistent.json.gz"},                      // missing file
           {"--replay", kPnpoly, "--objective", "p99(step):min"},     // a replay has no trace
           {"--replay", kPnpoly, "--objective", "latency:min"},       // a replay reports only time
           {"--replay", kPnpoly, "--from_diagnosis", "report.yaml"},  // no such report
       }) {
    ProcessResult r = Tune(args);
    EXPECT_EQ(r.exit_code, 2) << args[0] << " " << args.back() << ": " << r.err;
    EXPECT_NE(r.err.find("error"), std::string::npos);
  }
  // A constraint that cannot be evaluated excludes every configuration: the reason is given, not
  // only "no configuration satisfies the constraints".
  fs::path dir = TestDir("constraint_overflow");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 1, high: 4}\n"
                                       "constraints: ['x ** 100000 > 1']\n";
  ProcessResult overflow = Tune({"--space", "space.yaml", "--budget", "1", "--", "/bin/echo", "{x}"}, dir.string());
  EXPECT_EQ(overflow.exit_code, 2);
  EXPECT_NE(overflow.err.find("no configuration satisfies the constraints; evaluating them failed: expression "
                              "\"x ** 100000 > 1\": power out of range"),
            std::string::npos)
      << overflow.err;
}

// `--objective "mean(step):min"`: each trial runs under `trace`, and the objective comes from its
// trace (the script prints nothing). The best of x in 0..4 is x = 2 (30 ms steps, others 60-90 ms:
// with 10 ms steps, a loaded 2-core machine once delayed x = 2's sleeps past x = 1's);
// x = 4 fails with a message. The default (x = 0) is re-measured with the best, and the
// improvement compares the two means. Trials run in folders under the TMPDIR given, all removed.
TEST(TuneCommandTest, TraceObjectiveIsReadFromATraceOfEachTrial) {
  fs::path dir = TestDir("traced"), tmp = dir / "tmp";
  fs::create_directories(tmp);
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 4, default: 0}\n";
  std::ofstream(dir / "steps.py") << "import sys, time, cprof\n"
                                     "x = int(sys.argv[1])\n"
                                     "if x == 4:\n"
                                     "    sys.exit('boom: x=4 is not supported')\n"
                                     "for i in range(5):\n"
                                     "    cprof.step(i)\n"
                                     "    time.sleep(0.03 * (1 + abs(x - 2)))\n"
                                     "cprof.step(5)\n";
  ProcessResult r = RunProcess({kBinary, "tune", "--space", (dir / "space.yaml").string(), "--objective",
                                "mean(step):min", "--budget", "7", "--remeasure", "1", "--storage", "memory", "--json",
                                "--", "/usr/bin/python3", (dir / "steps.py").string(), "{x}"},
                               {{"TMPDIR", tmp.string()}}, 600 * kNsPerS, dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = LastJsonLine(r.out);
  ASSERT_TRUE(j.is_object()) << r.out;
  EXPECT_EQ(j["trials"], 5);
  EXPECT_EQ(j["failed"], 1) << r.err;
  EXPECT_EQ(j["space_exhausted"], true);
  int failed_seen = 0;
  for (const auto& h : j["history"]) {
    if (h["params"]["x"] != 4) continue;
    ++failed_seen;  // the reason quotes the target's own error, not trace's summary line
    EXPECT_NE(h["reason"].get<std::string>().find("boom: x=4 is not supported"), std::string::npos) << h.dump();
  }
  EXPECT_EQ(failed_seen, 1);
  EXPECT_EQ(j["best_params"]["x"], 2) << r.out;
  // ms: five steps of 30 ms, and the step the last cprof.step() opens, which ends with the script.
  EXPECT_GE(j["best_value"].get<double>(), 15.0);
  EXPECT_LT(j["best_value"].get<double>(), 45.0);
  // Re-measured: the best and the default, and the improvement between their means.
  ASSERT_EQ(j["remeasured"].size(), 2u) << j["remeasured"].dump();
  EXPECT_EQ(j["remeasured"][1]["params"]["x"], 0);
  EXPECT_GE(j["remeasured"][0]["n"].get<int>(), 2);
  const nlohmann::json &best = j["remeasured"][0], &def = j["remeasured"][1];
  EXPECT_DOUBLE_EQ(j["best_value"].get<double>(), best["mean"].get<double>());
  EXPECT_DOUBLE_EQ(j["default_value"].get<double>(), def["mean"].get<double>());
  EXPECT_NEAR(j["improvement_over_default"].get<double>(),
              (def["mean"].get<double>() - best["mean"].get<double>()) / def["mean"].get<double>(), 1e-12);
  const bool overlap = best["ci95_low"] <= def["ci95_high"] && def["ci95_low"] <= best["ci95_high"];
  EXPECT_EQ(j["improvement_within_noise"], overlap);
  for (const auto& c : j["remeasure_candidates"]) {  // the chosen one ran to the end
    ASSERT_TRUE(c["raced_away"].is_boolean()) << c.dump();
    if (c["trial"] == j["best_trial"]) {
      EXPECT_FALSE(c["raced_away"].get<bool>()) << c.dump();
    }
  }
  // Nothing is left in the TMPDIR: no trial folder, trace file or collector session.
  EXPECT_TRUE(fs::is_empty(tmp)) << fs::directory_iterator(tmp)->path();
}

TEST(TuneCommandTest, InstalledAsCannAutoTune) {
  fs::path dir = TestDir("alias");
  fs::path alias = dir / "cann-auto-tune";
  fs::create_symlink(kBinary, alias);
  ProcessResult r = RunProcess({alias.string(), "--replay", kPnpoly, "--budget", "5", "--json", "--quiet"},
                               {}, 120 * kNsPerS, "/tmp");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = LastJsonLine(r.out);
  EXPECT_EQ(j["trials"], 5);
}

// `diagnose` of the HTA NCCL fixture, written to `report`.
void DiagnoseNccl(const std::string& report) {
  ProcessResult d =
      RunProcess({kBinary, "diagnose", "--trace",
                  CPROF_FIXTURES_DIR "/kineto/hta/nccl_parser_config/nccl_data.json.gz", "--output", report},
                 {}, 120 * kNsPerS, "/tmp");
  ASSERT_EQ(d.exit_code, 0) << d.err;
}

// --from_diagnosis with a space whose `fixes:` answer a finding: the study starts from the fix, and
// when a measurement overrules it, runtime_adjustment.yaml says so instead of crediting the finding.
TEST(TuneCommandTest, RuntimeAdjustmentSaysWhenTheFindingsFixMeasuredWorse) {
  fs::path dir = TestDir("guided");
  const std::string report = (dir / "report.yaml").string();
  ASSERT_NO_FATAL_FAILURE(DiagnoseNccl(report));  // its top finding: device_idle (confidence 0.80)
  const std::string space = (dir / "space.yaml").string();
  std::ofstream(space) << "parameters:\n"
                          "  - {name: x, type: int, low: 0, high: 3, default: 1, fixes: {device_idle: 3}}\n"
                          "  - {name: y, type: int, low: 0, high: 3, default: 0}\n";
  const std::string yaml = (dir / "runtime_adjustment.yaml").string();
  // x = 0 is best; the finding's fix (x = 3) is the worst value.
  ProcessResult r = Tune({"--space",
                          space,
                          "--from_diagnosis",
                          report,
                          "--runtime_adjustment",
                          yaml,
                          "--budget",
                          "16",
                          "--sampler",
                          "random",
                          "--seed",
                          "1",
                          "--quiet",
                          "--",
                          "/bin/sh",
                          "-c",
                          "echo \"{{\\\"ms\\\": $(( $1 * 10 + $2 + 1 ))}}\"",
                          "sh",
                          "{x}",
                          "{y}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string text = ReadText(yaml);
  EXPECT_NE(text.find("tuned because of device_idle"), std::string::npos) << text;
  EXPECT_NE(text.find("its fix x=3 measured worse than the configuration chosen"), std::string::npos) << text;
  EXPECT_EQ(text.find("suggested by"), std::string::npos) << text;

  // A fix whose trial failed says so: it was not measured at all (a PyTorch without torch.compile
  // failed the guided start, and the file said the fix "measured worse").
  const std::string failed_yaml = (dir / "failed.yaml").string();
  r = Tune({"--space", space, "--from_diagnosis", report, "--runtime_adjustment", failed_yaml, "--budget", "6",
            "--storage", "memory", "--seed", "1", "--quiet", "--", "/bin/sh", "-c",
            "if [ $1 = 3 ]; then echo no such mode >&2; exit 1; fi; echo \"{{\\\"ms\\\": $(( $1 * 10 + $2 + 1 ))}}\"",
            "sh", "{x}", "{y}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string failed = ReadText(failed_yaml);
  EXPECT_NE(failed.find("its fix x=3 failed (exit code 1"), std::string::npos) << failed;
}

// recommend-runtime and tune --from_diagnosis both default to runtime_adjustment.yaml in the
// working folder: tune keeps the other producer's file and writes runtime_adjustment.tune.yaml.
TEST(TuneCommandTest, DefaultRuntimeAdjustmentKeepsRecommendRuntimesFile) {
  fs::path dir = TestDir("keep_adjustment");
  const std::string report = (dir / "report.yaml").string();
  ASSERT_NO_FATAL_FAILURE(DiagnoseNccl(report));
  ProcessResult rec = RunProcess({kBinary, "recommend-runtime", "--trace",
                                  CPROF_FIXTURES_DIR "/kineto/hta/nccl_parser_config/nccl_data.json.gz", "--output",
                                  "runtime_adjustment.yaml"},
                                 {}, 120 * kNsPerS, dir.string());
  ASSERT_EQ(rec.exit_code, 0) << rec.err;
  using cli_test::ReadFile;
  const std::string before = ReadFile(dir / "runtime_adjustment.yaml");
  ASSERT_NE(before.find("producer: recommend-runtime"), std::string::npos) << before;
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: threads, type: int, low: 1, high: 2, default: 1}\n";
  ProcessResult r = Tune({"--space", "space.yaml", "--from_diagnosis", report, "--budget", "2", "--seed", "1", "--",
                          "/bin/sh", "-c", "echo \"{{\\\"ms\\\": $1}}\"", "sh", "{threads}"},
                         dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(ReadFile(dir / "runtime_adjustment.yaml"), before);
  const std::string tuned = ReadFile(dir / "runtime_adjustment.tune.yaml");
  EXPECT_NE(tuned.find("producer: tune"), std::string::npos) << tuned;
  EXPECT_NE(tuned.find("intra_op"), std::string::npos) << tuned;
  EXPECT_NE(r.err.find("runtime_adjustment.yaml holds recommend-runtime's settings; kept"), std::string::npos) << r.err;
}

// --from_diagnosis without --space tunes the knobs the findings suggest (issue 8: "turns findings
// into a space and a starting point"): it used to stop with "give the search space with --space".
// The finding's fix (channels_last) runs right after the default, and the choice is written.
TEST(TuneCommandTest, FromDiagnosisAloneTunesTheFindingsKnobs) {
  fs::path dir = TestDir("diagnosis_space");
  std::ofstream(dir / "report.yaml") << "findings:\n"
                                        "  - {category: layout_conversion, confidence: 0.9, title: copies}\n"
                                        "  - {category: gc, confidence: 0.9, title: pauses}\n";
  // channels_last takes 2 ms, contiguous_format 5 ms.
  const std::vector<std::string> cmd = {
      "--", "/bin/sh",
      "-c", "[ \"$1\" = channels_last ] && echo '{{\"ms\": 2}}' || echo '{{\"ms\": 5}}'",
      "sh", "{memory_format}"};
  std::vector<std::string> args = {"--from_diagnosis", "report.yaml", "--budget",    "4", "--seed", "1",
                                   "--storage",        "memory",      "--remeasure", "0"};
  args.insert(args.end(), cmd.begin(), cmd.end());
  ProcessResult r = Tune(args, dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("space from report.yaml: {memory_format} [contiguous_format, channels_last]"),
            std::string::npos)
      << r.err;
  EXPECT_NE(
      r.err.find("guided start from report.yaml: memory_format=channels_last (layout_conversion: copies)"),
      std::string::npos)
      << r.err;
  EXPECT_NE(r.out.find("best     ms = 2 (trial 1)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("default  ms = 5 -> +60.0% better with the best"), std::string::npos) << r.out;
  const std::string yaml = cli_test::ReadFile(dir / "runtime_adjustment.yaml");
  EXPECT_NE(yaml.find("memory_format:\n    value: channels_last"), std::string::npos) << yaml;

  // The report's device and each finding's metrics reach the knobs: the pool the traced run used
  // (8 on 2 cores) is the default, and the fix is the cores.
  std::ofstream(dir / "threads.yaml") << "device: cpu\nfindings:\n"
                                         "  - category: thread_oversubscription\n    confidence: 0.9\n"
                                         "    title: busy\n    evidence:\n      metrics:\n"
                                         "        - {name: cpu_cores, value: 2}\n"
                                         "        - {name: torch_intra_op_threads, value: 8}\n";
  ProcessResult threads = Tune({"--from_diagnosis", "threads.yaml", "--budget", "2", "--storage", "memory",
                                "--remeasure", "0", "--", "/bin/echo", "{{\"ms\": {num_threads}}}"},
                               dir.string());
  ASSERT_EQ(threads.exit_code, 0) << threads.err;
  EXPECT_NE(threads.err.find("space from threads.yaml: {num_threads} [1, 2, 8]"), std::string::npos) << threads.err;
  EXPECT_NE(threads.err.find("guided start from threads.yaml: num_threads=2"), std::string::npos) << threads.err;

  // A space of the user's without `fixes:` for these findings: no guided start, and it says so.
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: memory_format, values: [contiguous_format, "
                                       "channels_last]}\n";
  std::vector<std::string> own = {"--space", "space.yaml", "--from_diagnosis", "report.yaml", "--budget", "2",
                                  "--storage", "memory", "--remeasure", "0"};
  own.insert(own.end(), cmd.begin(), cmd.end());
  r = Tune(own, dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("no guided start from report.yaml: no parameter of the space has a `fixes:` entry for "
                       "layout_conversion, gc"),
            std::string::npos)
      << r.err;

  // A knob of the findings that the command never receives is an error: every trial ran the same
  // command, and runtime_adjustment.yaml said the fix "measured worse".
  args = {"--from_diagnosis", "report.yaml", "--storage", "memory", "--", "/bin/echo", "{{\"ms\": 1}}"};
  r = Tune(args, dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(
      r.err.find("--from_diagnosis report.yaml: the command receives no {memory_format}: put {memory_format} "
                 "where the program takes that setting (an argument, or --env NAME={memory_format}), or give "
                 "a --space without it"),
      std::string::npos)
      << r.err;

  // A placeholder the generated space lacks names the ones it has.
  args = {"--from_diagnosis", "report.yaml", "--storage", "memory", "--", "/bin/echo", "{threads}"};
  r = Tune(args, dir.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("no parameter named 'threads' (the space has {memory_format})"), std::string::npos)
      << r.err;

  // A trace given for the report says what to run first (it said "not a diagnosis report").
  const std::string trace = CPROF_FIXTURES_DIR "/kineto/hta/nccl_parser_config/nccl_data.json.gz";
  r = Tune({"--from_diagnosis", trace, "--storage", "memory", "--", "/bin/echo", "{memory_format}"},
           dir.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("run `cann-profiler diagnose --trace"), std::string::npos) << r.err;
}

// A study is one space, objective and command: the same --study with another command is refused,
// and the message names the command (it said "another search space or objective" only).
TEST(TuneCommandTest, AnotherCommandOnANamedStudyIsRefusedNamingTheCommand) {
  fs::path dir = TestDir("named_study");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 2, default: 1}\n";
  auto run = [&](const std::string& ms) {
    return Tune({"--space", "space.yaml", "--study", "mine", "--storage", "sqlite://s.db", "--objective",
                 "ms", "--budget", "2", "--remeasure", "0", "--quiet", "--", "/bin/echo",
                 "{{\"ms\": " + ms + ", \"x\": {x}}}"},
                dir.string());
  };
  ProcessResult r = run("1");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run("2");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("study 'mine' exists with another search space, objective or command"),
            std::string::npos)
      << r.err;
}

// The best's runs for the result all fail (it ran 4 times, then never again): its line keeps the
// search's value and says so, and no improvement is computed from a search value against the
// default's fresh mean (it read "+80.0% better" with no warning). The mirror case, the default's.
TEST(TuneCommandTest, AConfigurationWhoseFreshRunsAllFailKeepsItsSearchValueSaidSo) {
  fs::path dir = TestDir("fresh_failed");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 1, high: 5, default: 1}\n";
  // x=FAILX fails from its (FAILAFTER+1)th run on; ms = (x-3)^2 + 1, so x=3 is the best.
  std::ofstream(dir / "obj.sh") << "x=$1\necho $x >> runs\nn=$(grep -c \"^$x\\$\" runs)\n"
                                   "if [ \"$x\" = \"$FAILX\" ] && [ \"$n\" -gt \"$FAILAFTER\" ]; then echo flaky >&2; exit 1; fi\n"
                                   "echo \"{\\\"ms\\\": $(( (x-3)*(x-3) + 1 )).$n}\"\n";
  for (const auto& [failx, after, best_source, default_source] :
       {std::tuple{"3", "4", "search_fresh_failed", "fresh"}, std::tuple{"1", "3", "fresh", "search_fresh_failed"}}) {
    fs::remove(dir / "runs");
    fs::remove(dir / "s.db");
    ProcessResult r = Tune({"--space", "space.yaml", "--budget", "5", "--storage", "sqlite://s.db", "--report", "",
                            "--env", std::string("FAILX=") + failx, "--env", std::string("FAILAFTER=") + after,
                            "--json", "--", "/bin/sh", "obj.sh", "{x}"},
                           dir.string());
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = LastJsonLine(r.out);
    EXPECT_EQ(j["best_params"]["x"], 3) << j.dump();
    EXPECT_EQ(j["best_value_source"], best_source) << j.dump();
    EXPECT_EQ(j["default_value_source"], default_source) << j.dump();
    EXPECT_TRUE(j["improvement_over_default"].is_null()) << j.dump();
  }
  fs::remove(dir / "runs");
  fs::remove(dir / "s.db");
  ProcessResult text = Tune({"--space", "space.yaml", "--budget", "5", "--storage", "sqlite://s.db", "--report", "",
                             "--env", "FAILX=3", "--env", "FAILAFTER=4", "--", "/bin/sh", "obj.sh", "{x}"},
                            dir.string());
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("best     ms = 1.1 (trial 2) (the search's value; re-measuring it: 3 runs failed: exit code "
                          "1: flaky; it may not run reliably)"),
            std::string::npos)
      << text.out;
  EXPECT_EQ(text.out.find("better with the best"), std::string::npos) << text.out;
}

// The re-measurement at the end runs each configuration max(3, --repeats) more times: it reports
// progress too (with 5-minute trials it was a silent quarter of an hour per configuration).
TEST(TuneCommandTest, ReMeasurementReportsProgress) {
  fs::path dir = TestDir("remeasure_progress");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 0}\n";
  ProcessResult r = Tune({"--space", "space.yaml", "--budget", "3", "--storage", "memory", "--remeasure", "1",
                          "--", "/bin/sh", "-c", "echo \"{{\\\"ms\\\": $(( 10 - $1 ))}}\"", "sh", "{x}"},
                         dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // The best and the default (x = 0, the worst), to choose, then both again for the result. The
  // default's 2 identical values are clearly worse than the best's: it is raced away after 2 runs.
  // Each stage counts its own configurations (a total across both went 1/3, then 2/2).
  EXPECT_NE(r.err.find("[re-measured 1/2] trial 0: ms = 10 [10, 10] (95% CI, n=2) (stopped early: clearly worse)"),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("[re-measured 2/2] trial "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[re-measured again 1/2] trial "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("[re-measured again 2/2] trial 0 (the default, for the result): ms = 10 [10, 10] (95% CI, "
                       "n=3)"),
            std::string::npos)
      << r.err;
  r = Tune({"--space", "space.yaml", "--budget", "3", "--storage", "memory", "--remeasure", "1", "--quiet",
            "--", "/bin/sh", "-c", "echo \"{{\\\"ms\\\": $(( 10 - $1 ))}}\"", "sh", "{x}"},
           dir.string());
  EXPECT_EQ(r.err.find("re-measured"), std::string::npos) << r.err;
}

// With 0.1 s trials and --time 3s the full re-measurement (the best 3 and the default, 3 runs
// each, then 2 x 3) would take 2 s: the search keeps 0.75 s, and the JSON says how many of the
// best the re-measurement had room for (the text's note: tune_summary_test.cc).
TEST(TuneCommandTest, TimeLimitSaysHowManyTheReMeasurementHadRoomFor) {
  fs::path dir = TestDir("time_share");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 99, default: 0}\n";
  ProcessResult r = Tune({"--space", "space.yaml", "--budget", "100", "--storage", "memory", "--time", "3s",
                          "--remeasure", "3", "--json", "--", "/bin/sh", "-c",
                          "sleep 0.1; echo \"{{\\\"ms\\\": $(( 100 - $1 ))}}\"", "sh", "{x}"},
                         dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const nlohmann::json j = LastJsonLine(r.out);
  ASSERT_TRUE(j.contains("search_stopped_for_time")) << r.out;
  EXPECT_LE(j["search_stopped_for_time"]["reserved_s"].get<double>(), 0.75 + 1e-9) << r.out;
  EXPECT_GT(j["trials"].get<int>(), 8) << r.out;  // the full reserve left room for about 8
  ASSERT_TRUE(j.contains("remeasure_top_within_time")) << r.out;
  EXPECT_LT(j["remeasure_top_within_time"].get<int>(), 3) << r.out;
}

// The default study name follows the space, objective and command: an edited space starts a new
// study in the same file. The run says so (it looked like a resume that had lost every trial).
TEST(TuneCommandTest, AnEditedSpaceSaysItStartsANewStudy) {
  fs::path dir = TestDir("edited_space");
  auto run = [&](const std::string& high) {
    std::ofstream(dir / "space.yaml")
        << "parameters:\n  - {name: x, type: int, low: 0, high: " << high << ", default: 0}\n";
    return Tune({"--space", "space.yaml", "--storage", "sqlite://s.db", "--budget", "2", "--remeasure", "0",
                 "--", "/bin/sh", "-c", "echo \"{{\\\"ms\\\": $(( 10 - $1 ))}}\"", "sh", "{x}"},
                dir.string());
  };
  ProcessResult first = run("3");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err.find("new study"), std::string::npos) << first.err;  // an empty file: nothing to say
  ProcessResult again = run("3");
  EXPECT_EQ(again.err.find("new study"), std::string::npos) << again.err;  // resumed
  ProcessResult edited = run("5");
  ASSERT_EQ(edited.exit_code, 0) << edited.err;
  EXPECT_NE(edited.err.find("new study tune-"), std::string::npos) << edited.err;
  EXPECT_NE(edited.err.find("in sqlite://s.db, beside 1 other(s) (tune-"), std::string::npos) << edited.err;
}

// Constraints that exclude every configuration are bad input, not a study of 0 evaluations.
TEST(TuneCommandTest, ConstraintsExcludingEverythingAreAnError) {
  fs::path dir = TestDir("empty_space");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 1, high: 4}\n"
                                       "constraints:\n  - \"x > 10\"\n";
  ProcessResult r =
      Tune({"--space", "space.yaml", "--storage", "memory", "--", "/bin/echo", "{x}"}, dir.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("space.yaml: no configuration satisfies the constraints"), std::string::npos) << r.err;
  // A continuous space cannot be listed; that no random draw meets the constraints says the same
  // (it ran no trial and ended "no trial succeeded", exit 1).
  std::ofstream(dir / "floats.yaml") << "parameters:\n  - {name: x, type: float, low: 0, high: 1}\n"
                                        "  - {name: y, type: float, low: 0, high: 1}\nconstraints: [\"x + y > 2\"]\n";
  r = Tune({"--space", "floats.yaml", "--storage", "memory", "--", "/bin/echo", "{x}", "{y}"}, dir.string());
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("floats.yaml: no configuration satisfies the constraints"), std::string::npos) << r.err;
}

// The summary says when the default was the best (it said "+0.0% better with the best"), and
// what happened to a default that failed (it said nothing).
TEST(TuneCommandTest, SummarySaysWhenTheDefaultIsBestOrFailed) {
  fs::path dir = TestDir("default_line");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 2, default: 1}\n";
  auto run = [&](const std::string& script) {
    return Tune({"--space", "space.yaml", "--budget", "3", "--storage", "memory", "--remeasure", "0", "--",
                 "/bin/sh", "-c", script, "sh", "{x}"},
                dir.string());
  };
  ProcessResult r = run("echo \"{{\\\"ms\\\": $(( ($1 - 1) * ($1 - 1) + 1 ))}}\"");  // x = 1 (default) best
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("default  ms = 1 -> the default is the best configuration found"), std::string::npos)
      << r.out;
  r = run("[ $1 = 1 ] && {{ echo 'out of memory' >&2; exit 3; }}; echo \"{{\\\"ms\\\": $(( $1 + 1 ))}}\"");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("default  failed: exit code 3: out of memory"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace cprof::cli
