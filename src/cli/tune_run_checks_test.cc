// `tune` through the real binary: what is checked before the first trial (unwritable outputs,
// parameters the command never receives, option values), what --time bounds, how a misspelt
// trace objective stops the study, and how re-measurements with fewer than 2 runs read.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "cli/tune_command_test_util.h"

namespace cprof::cli {
namespace {

using namespace tune_test;  // NOLINT: the shared fixtures and helpers of the tune CLI tests

// An unwritable -o or --report was found out only after the whole study had run (its results
// lost with --storage memory): now before the first trial, exit 2, naming the option and path.
// Nothing is created early: only the folder is checked.
TEST(TuneRunChecksTest, UnwritableOutputsAreErrorsBeforeTheFirstTrial) {
  fs::path dir = TestDir("unwritable_outputs");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 0}\n";
  const std::string marker = (dir / "ran").string();
  auto run = [&](std::vector<std::string> outputs) {
    std::vector<std::string> args = {"--space", "space.yaml", "--budget", "2", "--storage", "memory", "--remeasure",
                                     "0", "--quiet"};
    args.insert(args.end(), outputs.begin(), outputs.end());
    args.insert(args.end(), {"--", "/bin/sh", "-c", "touch " + marker + "; echo '{{\"ms\": 1}}'", "sh", "{x}"});
    return Tune(args, dir.string());
  };
  ProcessResult r = run({"-o", "/nonexistent/out.json"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--output '/nonexistent/out.json': the folder /nonexistent does not exist"), std::string::npos)
      << r.err;
  r = run({"--report", "/nonexistent/rep.html"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--report '/nonexistent/rep.html': the folder /nonexistent does not exist"), std::string::npos)
      << r.err;
  r = run({"--report", dir.string()});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("is a folder; give a file name"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(marker)) << "a trial ran before the check";
  // A writable one: nothing is created before the end, and the study runs.
  r = run({"-o", (dir / "out.txt").string(), "--report", (dir / "rep.html").string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(fs::exists(dir / "out.txt"));
  EXPECT_TRUE(fs::exists(dir / "rep.html"));
}

// A --from_diagnosis document of another kind, or from a newer version, was found out only when
// the result was written, after the whole study: now before the first trial, exit 2.
TEST(TuneRunChecksTest, ADiagnosisOfAnotherKindOrVersionIsAnErrorBeforeTheFirstTrial) {
  fs::path dir = TestDir("diagnosis_kind");
  const std::string marker = (dir / "ran").string();
  const std::string findings =
      "findings:\n  - {category: layout_conversion, confidence: 0.9, title: t, evidence: [], suggestions: []}\n";
  std::ofstream(dir / "card.yaml") << "kind: case_card\n" << findings;
  std::ofstream(dir / "v2.yaml") << "schema_version: 2\nkind: diagnosis\n" << findings;
  for (const char* report : {"card.yaml", "v2.yaml"}) {
    ProcessResult r = Tune({"--from_diagnosis", report, "--budget", "2", "--storage", "memory", "--report", "",
                            "--quiet", "--", "/bin/sh", "-c", "touch " + marker + "; echo '{\"ms\": 1}'", "sh",
                            "{memory_format}"},
                           dir.string());
    EXPECT_EQ(r.exit_code, 2) << report << ": " << r.err;
    EXPECT_FALSE(fs::exists(marker)) << report << ": a trial ran before the check";
  }
  EXPECT_NE(Tune({"--from_diagnosis", "card.yaml", "--", "true"}, dir.string())
                .err.find("card.yaml: this is a 'case_card' document, not a diagnosis report"),
            std::string::npos);
  EXPECT_NE(Tune({"--from_diagnosis", "v2.yaml", "--", "true"}, dir.string())
                .err.find("v2.yaml: schema_version 2 is newer than this cann-profiler reads (1)"),
            std::string::npos);
}

// Every configuration measures 10 ms +- 0.4 (a fixed cycle of offsets, the same for the runs in
// turns of two configurations): the best found cannot be told from the default, and
// runtime_adjustment.yaml kept the best's values all the same.
TEST(TuneRunChecksTest, ABestWithinTheNoiseOfTheDefaultKeepsTheDefault) {
  fs::path dir = TestDir("within_noise");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 5, default: 0}\n";
  std::ofstream(dir / "b.py") << "import os, json\n"
                                 "n = int(open('n').read()) if os.path.exists('n') else 0\n"
                                 "open('n', 'w').write(str(n + 1))\n"
                                 "print(json.dumps({'ms': 10 + [0.4, 0.4, -0.4, -0.4][n % 4]}))\n";
  ProcessResult r = Tune({"--space", "space.yaml", "--objective", "ms:min", "--budget", "6", "--storage", "memory",
                          "--report", "r.html", "--seed", "1", "--runtime_adjustment", "ra.yaml", "--", "/usr/bin/python3",
                          "b.py", "{x}"},
                         dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  ASSERT_NE((r.out + r.err)
                .find("(within the noise: the final runs cannot tell them apart (Welch's t-test, 95%); the "
                      "default is kept)"),
            std::string::npos)
      << r.out << r.err;
  const std::string written = ReadText(dir / "ra.yaml");
  EXPECT_NE(written.find("value: 0\n"), std::string::npos) << written;
  EXPECT_NE(written.find("the default is kept"), std::string::npos) << written;
  const std::string html = ReadText(dir / "r.html");
  EXPECT_NE(html.find("within the noise: the final runs cannot tell them apart"), std::string::npos);
}

// x = 1 is fast for its first 4 runs (the search's and the runs that choose it) and slow after; the
// default (x = 0) stays at 50 ms. The final runs measure the chosen one clearly worse, beyond the
// noise: the default is the recommendation, in runtime_adjustment.yaml, the JSON and the report
// (it wrote x = 1 with "-98.0% vs the default").
TEST(TuneRunChecksTest, ABestTheFinalRunsMeasureWorseKeepsTheDefault) {
  fs::path dir = TestDir("drift");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 1, default: 0}\n";
  std::ofstream(dir / "b.py") << "import os, sys, json\n"
                                 "x = int(sys.argv[1]); f = 'n%d' % x\n"
                                 "n = int(open(f).read()) if os.path.exists(f) else 0\n"
                                 "open(f, 'w').write(str(n + 1))\n"
                                 "v = 50 + n % 2 if x == 0 else (10 + n % 2 if n < 4 else 100 + n % 2)\n"
                                 "print(json.dumps({'ms': v}))\n";
  ProcessResult r = Tune({"--space", "space.yaml", "--objective", "ms:min", "--budget", "2", "--remeasure", "1",
                          "--storage", "memory", "--report", "r.html", "--runtime_adjustment", "ra.yaml", "-o",
                          "r.json", "--", "/usr/bin/python3", "b.py", "{x}"},
                         dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string ra = ReadText(dir / "ra.yaml"), json = ReadText(dir / "r.json"), html = ReadText(dir / "r.html");
  EXPECT_NE(ra.find("value: 0\n"), std::string::npos) << ra;
  EXPECT_NE(ra.find("the default measured better in the final runs, beyond the noise"), std::string::npos)
      << ra;
  EXPECT_NE(json.find("\"keep_default\":true"), std::string::npos) << json;
  EXPECT_NE(json.find("\"improvement_within_noise\":false"), std::string::npos) << json;
  EXPECT_NE(html.find("the default measured better in the final runs"), std::string::npos);
}

// Parameters that appear neither as {name} in the command nor in an env entry reach the program
// only as CPROF_PARAM_<NAME>: one warning before the first trial names them.
TEST(TuneRunChecksTest, WarnsOnceAboutParametersTheCommandNeverReceives) {
  fs::path dir = TestDir("unused_params");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 0}\n"
                                       "  - {name: y, type: int, low: 0, high: 3, default: 0}\n"
                                       "  - {name: c, type: categorical, values: [a, b], default: a}\n"
                                       "env:\n  MY_Y: \"{y}\"\n";
  auto run = [&](std::vector<std::string> command) {
    std::vector<std::string> args = {"--space", "space.yaml", "--budget", "3", "--storage", "memory",
                                     "--remeasure", "0", "--report", "", "--"};
    args.insert(args.end(), command.begin(), command.end());
    return Tune(args, dir.string());
  };
  ProcessResult r = run({"/bin/echo", "{{\"ms\": {x}}}"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const std::string warning =
      "warning: parameter c of space.yaml appears nowhere in the command as {name} nor in an env entry: unless the "
      "program reads CPROF_PARAM_C from the environment, tuning it changes nothing";
  EXPECT_NE(r.err.find(warning), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("warning:"), r.err.rfind("warning:")) << "more than one warning: " << r.err;
  EXPECT_LT(r.err.find("warning:"), r.err.find("[1/3]")) << "after the first trial: " << r.err;
  r = run({"/bin/echo", "{{\"ms\": 1}}"});  // no placeholder at all: y still reaches it through MY_Y
  EXPECT_NE(r.err.find("warning: parameters x, c of space.yaml appear nowhere"), std::string::npos) << r.err;
  r = run({"/bin/echo", "{{\"ms\": {x}}}", "{c}"});
  EXPECT_EQ(r.err.find("warning:"), std::string::npos) << r.err;
  // Names that meet in one variable: the program could read only one of them.
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: a, type: int, low: 0, high: 3}\n"
                                       "  - {name: A, type: int, low: 0, high: 3}\n";
  r = run({"/bin/echo", "{{\"ms\": 1}}"});
  EXPECT_NE(
      r.err.find("warning: parameters a, A share the environment variable CPROF_PARAM_A: it holds only one "
                 "of their values"),
      std::string::npos)
      << r.err;
  r = run({"/bin/echo", "{{\"ms\": {a}}}", "{A}"});  // both passed by name: nothing to say
  EXPECT_EQ(r.err.find("warning:"), std::string::npos) << r.err;
}

// A `fixes:` category no finding has would never be applied: a misspelling, refused before the
// first trial with the categories there are.
TEST(TuneRunChecksTest, AFixForAnUnknownCategoryIsAnError) {
  fs::path dir = TestDir("fix_category");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 0, "
                                       "fixes: {layout_convresion: 2}}\n";
  ProcessResult r = Tune({"--space", "space.yaml", "--budget", "2", "--storage", "memory", "--report", "",
                          "--", "/bin/echo", "{{\"ms\": {x}}}"},
                         dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("space.yaml: line 2: parameter 'x': fixes.layout_convresion: not a diagnose finding "
                       "category (known: "
                       "launch_overhead, layout_conversion, "),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("[1/2]"), std::string::npos) << "no trial ran: " << r.err;
}

// --remeasure -1 was taken as the default; compound durations are durations.
TEST(TuneRunChecksTest, OptionValues) {
  fs::path dir = TestDir("option_values");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 0}\n";
  auto run = [&](std::vector<std::string> options) {
    std::vector<std::string> args = {"--space", "space.yaml", "--budget", "2", "--storage", "memory", "--quiet",
                                     "--report", ""};
    args.insert(args.end(), options.begin(), options.end());
    args.insert(args.end(), {"--", "/bin/echo", "{{\"ms\": {x}}}"});
    return Tune(args, dir.string());
  };
  ProcessResult r = run({"--remeasure", "-1"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--remeasure -1: must be 0 (no re-measurement) or more"), std::string::npos) << r.err;
  r = run({"--remeasure", "0", "--timeout", "1h30m", "--time", "2m30s"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = run({"--timeout", "30s1m"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("--timeout"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("from larger units to smaller"), std::string::npos) << r.err;
}

// --time is the whole run's: a trial still running at the limit is stopped there (the target
// sleeps 30 s), neither failed nor counted, and left to the rerun; nothing is re-measured after
// it. The ETA never reaches past the limit.
TEST(TuneRunChecksTest, TimeLimitStopsTheRunningTrialAndTheRemeasurement) {
  fs::path dir = TestDir("time_limit");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 9, default: 0}\n";
  auto run = [&](const std::string& time, const std::string& sleep_s, std::vector<std::string> more = {}) {
    std::vector<std::string> args = {"--space", "space.yaml", "--budget", "20", "--storage", "sqlite://s.db",
                                     "--time", time, "--report", ""};
    args.insert(args.end(), more.begin(), more.end());
    args.insert(args.end(), {"--", "/bin/sh", "-c", "sleep " + sleep_s + "; echo \"{{\\\"ms\\\": $((10 - $1))}}\"",
                             "sh", "{x}"});
    return Tune(args, dir.string());
  };
  auto t0 = std::chrono::steady_clock::now();
  ProcessResult r = run("2s", "30");
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 1) << r.err;  // nothing finished: no best
  EXPECT_LT(seconds, 10) << "the trial ran past --time";
  EXPECT_NE(r.out.find("--time ran out during trial 0 before its first run finished: not counted, not failed; it "
                       "runs again when the same command resumes the study (sqlite://s.db)"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("best     none: no trial finished within --time"), std::string::npos) << r.out;
  std::vector<std::pair<std::string, std::string>> trials = Trials((dir / "s.db").string());
  ASSERT_EQ(trials.size(), 1u);
  EXPECT_EQ(trials[0].second, "running");

  // Trials of 0.4 s, 3 s in all: the study resumes (trial 0 first), the ETA stays within the
  // limit, and the re-measurement is cut short or skipped, saying so.
  t0 = std::chrono::steady_clock::now();
  r = run("3s", "0.4", {"--remeasure", "3", "--repeats", "5"});
  const double again = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_LT(again, 3 + 3) << r.err;
  EXPECT_NE(r.err.find("] trial 0 ms=10"), std::string::npos) << r.err;
  int etas = 0;
  for (size_t at = r.err.find(" eta "); at != std::string::npos; at = r.err.find(" eta ", at + 1), ++etas) {
    const std::string eta = r.err.substr(at + 5, r.err.find(" |", at) - at - 5);
    EXPECT_TRUE(eta == "0 s" || eta == "1 s" || eta == "2 s" || eta == "3 s") << "under --time 3s: " << r.err;
  }
  EXPECT_GT(etas, 0) << r.err;
  EXPECT_TRUE(r.out.find("re-measurement skipped: --time had run out") != std::string::npos ||
              r.out.find("re-measurement cut short by --time") != std::string::npos)
      << r.out;
}

// n = 0 is no value ("lat = 0 [0, 0] (95% CI, n=0)"), n = 1 no interval ("[1.33, 1.33]"): a
// target that fails its 3rd, 4th, 6th and 7th runs leaves the default one fresh run per stage.
TEST(TuneRunChecksTest, ReMeasurementsOfOneRunHaveNoInterval) {
  fs::path dir = TestDir("one_run");
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 3, default: 0}\n";
  const std::string count = (dir / "count").string();
  const std::string script = "n=$(( $(cat " + count + " 2>/dev/null || echo 0) + 1 )); echo $n > " + count +
                             "; case $n in 3|4|6|7) echo flaky >&2; exit 1;; esac; echo '{{\"lat\": 6}}'";
  ProcessResult r = Tune({"--space", "space.yaml", "--budget", "1", "--storage", "memory", "--remeasure", "1",
                          "--report", "", "--json", "--", "/bin/sh", "-c", script, "sh", "{x}"},
                         dir.string());
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json j = LastJsonLine(r.out);
  ASSERT_EQ(j["remeasured"].size(), 1u) << r.out;
  const nlohmann::json& m = j["remeasured"][0];
  EXPECT_EQ(m["n"], 1);
  EXPECT_EQ(m["mean"], 6);
  EXPECT_TRUE(m["ci95_low"].is_null()) << m.dump();
  EXPECT_TRUE(m["ci95_high"].is_null()) << m.dump();
  EXPECT_EQ(m["shortfall"], "2 runs failed: exit code 1: flaky");
  EXPECT_NE(r.err.find("[re-measured 1/1] trial 0: lat = 6 (n=1: no interval) (2 runs failed: exit code 1: flaky)"),
            std::string::npos)
      << r.err;
  EXPECT_EQ(r.err.find("95% CI, n=1"), std::string::npos) << r.err;
}

// A trace objective whose span never appears stopped nothing: every trial failed with "no span
// named 'decodee'" and the study ended "best none", exit 1. Now it stops at the first trial, as a
// misspelt printed objective does, exit 2, listing the spans the trace has.
TEST(TuneRunChecksTest, AMisspeltSpanStopsAtTheFirstTrial) {
  fs::path dir = TestDir("misspelt_span"), tmp = dir / "tmp";
  fs::create_directories(tmp);
  std::ofstream(dir / "space.yaml") << "parameters:\n  - {name: x, type: int, low: 0, high: 4, default: 0}\n";
  std::ofstream(dir / "spans.py") << "import cprof\n"
                                     "for i in range(3):\n"
                                     "    with cprof.span('decode'):\n"
                                     "        pass\n";
  ProcessResult r = RunProcess({kBinary, "tune", "--space", (dir / "space.yaml").string(), "--objective",
                                "mean(decodee):min", "--budget", "5", "--storage", "memory", "--report", "", "--",
                                "/usr/bin/python3", (dir / "spans.py").string(), "{x}"},
                               {{"TMPDIR", tmp.string()}}, 600 * kNsPerS, dir.string());
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no span named 'decodee' in the trial's trace for 'mean(decodee)' (it has: "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find("decode"), r.err.rfind("decode")) << r.err;
  EXPECT_NE(r.err.find("no trial of this study has reported it"), std::string::npos) << r.err;
  EXPECT_EQ(r.err.find("[2/5]"), std::string::npos) << "ran past the first trial: " << r.err;
}

}  // namespace
}  // namespace cprof::cli
