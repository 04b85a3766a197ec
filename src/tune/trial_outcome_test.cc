// Judging finished evaluations, alone and in a study: the reason a trial fails with when its
// objective is absent, NaN or a string; the study that stops with a usage error, its trial left to
// the rerun, when no trial has reported the objective or the first trials fail alike.
#include "tune/trial_outcome.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "tune/space_file.h"
#include "tune/tuner.h"

namespace cprof::tune {
namespace {

EvalResult Complete(std::map<std::string, double> metrics, std::map<std::string, std::string> not_numbers = {}) {
  EvalResult r;
  r.state = TrialState::kComplete;
  r.metrics = std::move(metrics);
  r.not_numbers = std::move(not_numbers);
  return r;
}

TEST(TrialOutcomeTest, CheckObjectivesSaysWhatIsWrong) {
  const std::vector<ObjectiveSpec> t = {{"t", false}}, tt = {{"tt", false}};
  EXPECT_FALSE(CheckObjectives(t, Complete({{"t", 1.2}, {"mem", 3}})));
  auto p = CheckObjectives(tt, Complete({{"t", 1.2}, {"mem", 3}}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->reason, "no objective 'tt' in the output (it reports: mem, t)");
  EXPECT_TRUE(p->absent);
  p = CheckObjectives(t, Complete({}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->reason,
            "no objective 't' in the output (it reports nothing: print a JSON line like {\"t\": 12.3}, or use --regex)");
  EXPECT_TRUE(p->absent);
  p = CheckObjectives({}, Complete({}));  // no --objective, nothing printed
  ASSERT_TRUE(p);
  EXPECT_EQ(p->reason, "no metrics in the output (print a JSON line like {\"latency_ms\": 12.3}, or use --regex)");
  // Without --objective, values that are not numbers are named (it said "no metrics" and nothing more).
  p = CheckObjectives(
      {}, Complete({}, {{"t", "is a boolean (true), not a number"}, {"u", "is null, not a number"}}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->reason,
            "no metrics in the output: 't' is a boolean (true), not a number; 'u' is null, not a number");
  EXPECT_TRUE(p->absent);
  // A line that looked like the result and was not JSON says why, with or without --objective.
  EvalResult broken = Complete({});
  broken.output_problem = "its last line that looks like a JSON object is not JSON (x)";
  EXPECT_EQ(CheckObjectives({}, broken)->reason, "no metrics in the output: " + broken.output_problem);
  EXPECT_EQ(CheckObjectives(t, broken)->reason, "no objective 't' in the output: " + broken.output_problem);
  // Printed, but not a number: the trial fails with what it is, and the name was right.
  p = CheckObjectives(t, Complete({{"mem", 3}}, {{"t", "is NaN"}}));
  ASSERT_TRUE(p);
  EXPECT_EQ(p->reason, "objective 't' is NaN");
  EXPECT_FALSE(p->absent);
  p = CheckObjectives(t, Complete({}, {{"t", "is a string (\"12.5\"), not a number"}}));
  EXPECT_EQ(p->reason, "objective 't' is a string (\"12.5\"), not a number");
  p = CheckObjectives(t, Complete({{"t", INFINITY}}));  // an evaluator other than the runner's
  EXPECT_EQ(p->reason, "objective 't' is infinite");
  // Absent comes first: `t` is absent, `mem` NaN.
  p = CheckObjectives({{"mem", false}, {"t", false}}, Complete({}, {{"mem", "is NaN"}}));
  EXPECT_EQ(p->reason, "no objective 't' in the output (it reports: mem)");
}

TEST(TrialOutcomeTest, FirstFailuresAlikeWithTheDefault) {
  auto rec = [](TrialState s, const std::string& key, const std::string& reason, const std::string& params = "{}") {
    TrialRecord r;
    r.state = s;
    r.key = key;
    r.reason = reason;
    r.params = params;
    return r;
  };
  const std::string why = "exit code 2: b.py: error: unrecognized arguments: --bogus";
  using S = TrialState;
  std::vector<TrialRecord> three = {rec(S::kFailed, "d", why), rec(S::kInfeasible, "i", ""),
                                    rec(S::kFailed, "a", why), rec(S::kPending, "p", ""), rec(S::kFailed, "b", why)};
  auto stop = SameFailureFromTheStart(three, "d");
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->usage.message(), "the first 3 trials, the default configuration among them, failed the same way: " + why +
                                 "; fix the command (run it by hand to see), then rerun (the rerun that resumes the "
                                 "study runs these 3 trials again)");
  EXPECT_EQ(stop->trials.size(), 3u);
  EXPECT_FALSE(SameFailureFromTheStart(three, "x"));                 // the default is not among them
  EXPECT_FALSE(SameFailureFromTheStart({three[0], three[2]}, "d"));  // two only
  std::vector<TrialRecord> other = three;
  other[2].reason = "exit code 2: b.py: error: unrecognized arguments: --thread 4";
  EXPECT_FALSE(SameFailureFromTheStart(other, "d"));
  std::vector<TrialRecord> later = three;
  later.push_back(rec(S::kComplete, "c", ""));  // a configuration worked: not the command
  EXPECT_FALSE(SameFailureFromTheStart(later, "d"));

  // The message quotes each trial's own values: they are taken out before comparing, whole words
  // only ("16" is not the "1" of "exit code 1", nor part of "x16").
  auto quoting = [&](const std::string& key, const std::string& threads, const std::string& layout) {
    return rec(S::kFailed, key,
               "exit code 2: b.py: error: unrecognized arguments: --thread " + threads + " --layout " + layout,
               R"({"threads": ")" + threads + R"(", "layout": ")" + layout + R"("})");
  };
  std::vector<TrialRecord> quoted = {quoting("d", "4", "nchw"), quoting("a", "16", "nhwc"), quoting("b", "1", "nchw")};
  stop = SameFailureFromTheStart(quoted, "d");
  ASSERT_TRUE(stop);
  EXPECT_NE(stop->usage.message().find("failed the same way: " + quoted[0].reason + ";"), std::string::npos)
      << stop->usage.message();
  quoted[1].reason += " x16";  // differs by more than its values
  EXPECT_FALSE(SameFailureFromTheStart(quoted, "d"));
  // Neither the exit code nor a word the value is part of ("v12") is taken for a value.
  std::vector<TrialRecord> code = {rec(S::kFailed, "d", "exit code 2: v12", R"({"x": "2"})"),
                                   rec(S::kFailed, "a", "exit code 2: v12", R"({"x": "3"})"),
                                   rec(S::kFailed, "b", "exit code 2: v12", R"({"x": "4"})")};
  EXPECT_TRUE(SameFailureFromTheStart(code, "d"));
  code[1].reason = "exit code 2: v13";
  EXPECT_FALSE(SameFailureFromTheStart(code, "d"));
  // Nor a signal's number: with x = 11 "killed by signal 11" read "killed by signal {x}".
  const std::string segv = "killed by signal 11 (Segmentation fault)";
  std::vector<TrialRecord> crash = {rec(S::kFailed, "d", segv, R"({"x": "2"})"),
                                    rec(S::kFailed, "a", segv, R"({"x": "11"})"),
                                    rec(S::kFailed, "b", segv, R"({"x": "13"})")};
  EXPECT_TRUE(SameFailureFromTheStart(crash, "d"));

  // Three timeouts, the default among them: a command that waits for input, or a --timeout far
  // too short.
  const std::string slow = "timed out after 1s";
  std::vector<TrialRecord> hung = {rec(S::kFailed, "d", slow), rec(S::kFailed, "a", slow), rec(S::kFailed, "b", slow)};
  stop = SameFailureFromTheStart(hung, "d");
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->usage.message(),
            "the first 3 trials, the default configuration among them, timed out after 1s; run the command by hand to "
            "see whether it finishes (it may be waiting for input), or give a longer --timeout, then rerun (the rerun "
            "that resumes the study runs these 3 trials again)");
  hung[1].reason = "exit code 1: boom";
  EXPECT_FALSE(SameFailureFromTheStart(hung, "d"));

  // A space without a default: no configuration is known to work, so 5 alike, not 3.
  std::vector<TrialRecord> no_default = {rec(S::kFailed, "a", why), rec(S::kFailed, "b", why),
                                         rec(S::kFailed, "c", why), rec(S::kFailed, "e", why)};
  EXPECT_FALSE(SameFailureFromTheStart(no_default, std::nullopt));
  no_default.push_back(rec(S::kFailed, "f", why));
  stop = SameFailureFromTheStart(no_default, std::nullopt);
  ASSERT_TRUE(stop);
  EXPECT_EQ(stop->usage.message(),
            "the first 5 trials failed the same way: " + why +
                "; fix the command (run it by hand to see), then rerun (the rerun that resumes the study runs "
                "these 5 trials again)");
  no_default[4].reason = "exit code 1: out of memory";
  EXPECT_FALSE(SameFailureFromTheStart(no_default, std::nullopt));

  TrialRecord absent = rec(S::kPending, "f", "no objective 't' in the output (it reports: mem)");
  EXPECT_TRUE(ObjectiveNeverReported(three, absent));
  TrialRecord partly = rec(S::kFailed, "e", "exit code 1");
  partly.measurements = R"([{"t": 1.5}])";  // its first repeat reported it
  EXPECT_FALSE(ObjectiveNeverReported({three[0], partly}, absent));
  EXPECT_FALSE(ObjectiveNeverReported(later, absent));
}

SearchSpace LineSpace() {
  auto f = ParseSpaceYaml("parameters:\n  - {name: x, type: int, low: 0, high: 15, default: 0}\n", "line.yaml");
  EXPECT_TRUE(f.ok());
  return std::move(f).value().space;
}

TuneOptions Options(const std::string& objective, int64_t budget, int workers = 1) {
  TuneOptions o;
  o.study_name = "outcome";
  o.budget = budget;
  o.workers = workers;
  o.sampler = "random";
  if (!objective.empty()) o.objectives = {{objective, false}};
  return o;
}

// Reports `report(x)` for configuration x, after `sleep_ms`.
class FnEvaluator : public Evaluator {
 public:
  explicit FnEvaluator(std::function<EvalResult(int)> f, int sleep_ms = 0) : f_(std::move(f)), sleep_ms_(sleep_ms) {}
  EvalResult Evaluate(const std::map<std::string, std::string>& p, Rng&) override {
    ++calls;
    std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms_));
    return f_(std::stoi(p.at("x")));
  }
  std::atomic<int> calls{0};

 private:
  std::function<EvalResult(int)> f_;
  int sleep_ms_;
};

// `--objective tt` while the command prints {"t": 1.2, "mem": 3}: every trial of the budget failed
// "no objective 'tt:min' (it reports: mem, t)" and the run exited 1. Now the first trial stops the
// study with a usage error naming both, and is left unrecorded; the corrected rerun measures it.
TEST(TrialOutcomeTest, AnObjectiveNoTrialHasReportedStopsTheStudyAndTheRerunMeasuresItsTrial) {
  SearchSpace space = LineSpace();
  auto store = MakeMemoryStorage();
  FnEvaluator misspelt([](int) { return Complete({{"t", 1.2}, {"mem", 3}}); });
  auto r = RunStudy(space, misspelt, *store, Options("tt", 10));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(r.status().message(),
            "no objective 'tt' in the output (it reports: mem, t), and no trial of this study has reported it: check "
            "the objective's name and what the command prints (trial 0 is left to run again when the study resumes)");
  EXPECT_EQ(misspelt.calls, 1);
  auto trials = store->LoadTrials(1);
  ASSERT_TRUE(trials.ok());
  ASSERT_EQ(trials->size(), 1u);
  EXPECT_EQ(trials->front().state, TrialState::kPending);  // not failed: the rerun runs it
  EXPECT_EQ(trials->front().sampler, "default");

  // The command fixed (it prints tt now), the same study resumes: the default runs, first.
  FnEvaluator fixed([](int x) { return Complete({{"tt", 1.0 + x}}); });
  r = RunStudy(space, fixed, *store, Options("tt", 4));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->evaluations, 4);
  EXPECT_EQ(r->trials[0].state, TrialState::kComplete);
  EXPECT_EQ(r->trials[0].params.at("x"), "0");
  EXPECT_EQ(fixed.calls, 4);
}

TEST(TrialOutcomeTest, NoMetricsAtAllStopTheStudyToo) {
  SearchSpace space = LineSpace();
  FnEvaluator silent([](int) { return Complete({}); });
  auto store = MakeMemoryStorage();
  auto r = RunStudy(space, silent, *store, Options("", 10));  // no --objective either
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(r.status().message().rfind("no metrics in the output (print a JSON line like", 0), 0u)
      << r.status().message();
  // Two workers: each trial that ends without it before any reported it stays unrecorded.
  FnEvaluator slow([](int) { return Complete({{"mem", 3}}); }, 30);
  store = MakeMemoryStorage();
  r = RunStudy(space, slow, *store, Options("t", 10, 2));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("no objective 't' in the output (it reports: mem)"), std::string::npos);
  auto trials = store->LoadTrials(1);
  ASSERT_TRUE(trials.ok());
  EXPECT_LE(trials->size(), 2u);
  for (const TrialRecord& t : *trials) EXPECT_EQ(t.state, TrialState::kPending);
}

// Once a trial of the study has reported the objective, one that lacks it is a failed trial with
// its reason, as before (the objective's name is right; that configuration did not print it).
TEST(TrialOutcomeTest, AfterTheObjectiveWasReportedATrialLackingItFails) {
  SearchSpace space = LineSpace();
  FnEvaluator half([](int x) { return x < 8 ? Complete({{"t", 1.0 + x}}) : Complete({{"mem", 3}}); });
  auto store = MakeMemoryStorage();
  auto r = RunStudy(space, half, *store, Options("t", 16, 2));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->evaluations, 16);
  for (const TrialSummary& t : r->trials) {
    if (std::stoi(t.params.at("x")) < 8) continue;
    EXPECT_EQ(t.state, TrialState::kFailed);
    EXPECT_EQ(t.reason, "no objective 't' in the output (it reports: mem)");
  }
}

// {"t": NaN} failed as "no metrics in the output"; a NaN trial is a failed trial (as in Optuna) that
// says so, even the first: the objective's name is right. Unnamed, the objective is still `t`.
TEST(TrialOutcomeTest, ANaNOrStringObjectiveFailsItsTrialWithWhatItIs) {
  SearchSpace space = LineSpace();
  FnEvaluator odd([](int x) {
    if (x == 0) return Complete({}, {{"t", "is NaN"}});
    if (x == 1) return Complete({}, {{"t", "is a string (\"12.5\"), not a number"}});
    return Complete({{"t", 1.0 + x}});
  });
  for (const std::string objective : {"t", ""}) {
    auto store = MakeMemoryStorage();
    auto r = RunStudy(space, odd, *store, Options(objective, 16));
    ASSERT_TRUE(r.ok()) << r.status().message();
    for (const TrialSummary& t : r->trials) {
      const int x = std::stoi(t.params.at("x"));
      if (x > 1) continue;
      EXPECT_EQ(t.state, TrialState::kFailed);
      EXPECT_EQ(t.reason, x == 0 ? "objective 't' is NaN" : "objective 't' is a string (\"12.5\"), not a number");
    }
  }
}

// A command line the program refuses (argparse: "unrecognized arguments") failed every trial of
// the budget the same way. The first 3 trials failing alike, the default among them, stop it.
TEST(TrialOutcomeTest, TheSameExitErrorOnTheFirstThreeTrialsStopsTheStudy) {
  SearchSpace space = LineSpace();
  const std::string why = "exit code 2: bench.py: error: unrecognized arguments: --bogus";
  FnEvaluator refused([&](int) {
    EvalResult e;
    e.state = TrialState::kFailed;
    e.reason = why;
    e.exit_error = true;
    return e;
  });
  auto store = MakeMemoryStorage();
  auto r = RunStudy(space, refused, *store, Options("t", 20));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
  EXPECT_EQ(r.status().message(),
            "the first 3 trials, the default configuration among them, failed the same way: " + why +
                "; fix the command (run it by hand to see), then rerun (the rerun that resumes the study runs "
                "these 3 trials again)");
  EXPECT_EQ(refused.calls, 3);
  // They say nothing about their configurations: reopened, under no worker, outcome cleared, so
  // that the rerun after the fix runs them (the default first) within the budget.
  auto opened = store->OpenStudy("outcome", StudyFingerprint(space, Options("t", 20).objectives, ""));
  ASSERT_TRUE(opened.ok()) << opened.status().message();
  auto kept = store->LoadTrials(*opened);
  ASSERT_TRUE(kept.ok());
  ASSERT_EQ(kept->size(), 3u);
  for (const TrialRecord& t : *kept) {
    EXPECT_EQ(t.state, TrialState::kPending) << t.number;
    EXPECT_EQ(t.worker, "") << t.number;
    EXPECT_EQ(t.reason, "") << t.number;
  }
  FnEvaluator fixed([](int x) { return Complete({{"t", 1.0 + x}}); });
  auto rerun = RunStudy(space, fixed, *store, Options("t", 5));
  ASSERT_TRUE(rerun.ok()) << rerun.status().message();
  EXPECT_EQ(rerun->evaluations, 5);
  EXPECT_EQ(rerun->resumed, 0);
  ASSERT_TRUE(rerun->default_trial);
  EXPECT_EQ(rerun->trials[*rerun->default_trial].state, TrialState::kComplete);
  // The message quotes the trial's own value: the same failure all the same.
  FnEvaluator quoting([](int x) {
    EvalResult e;
    e.reason = "exit code 2: unrecognized arguments: --thread " + std::to_string(x);
    e.exit_error = true;
    return e;
  });
  store = MakeMemoryStorage();
  r = RunStudy(space, quoting, *store, Options("t", 20));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("failed the same way: exit code 2: unrecognized arguments: --thread 0;"),
            std::string::npos)
      << r.status().message();  // the default's (x = 0) own words
  EXPECT_EQ(quoting.calls, 3);
  // Three timeouts, the default among them.
  FnEvaluator hanging([](int) {
    EvalResult e;
    e.reason = "timed out after 1s";
    e.timed_out = true;
    return e;
  });
  store = MakeMemoryStorage();
  r = RunStudy(space, hanging, *store, Options("t", 20));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("or give a longer --timeout"), std::string::npos) << r.status().message();
  EXPECT_EQ(hanging.calls, 3);
  // A space without a default: 5 alike stop it.
  auto no_default = ParseSpaceYaml("parameters:\n  - {name: x, type: int, low: 0, high: 15}\n", "line.yaml");
  ASSERT_TRUE(no_default.ok());
  FnEvaluator refused_again([&](int) {
    EvalResult e;
    e.reason = why;
    e.exit_error = true;
    return e;
  });
  store = MakeMemoryStorage();
  r = RunStudy(no_default->space, refused_again, *store, Options("t", 20));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().message(),
            "the first 5 trials failed the same way: " + why +
                "; fix the command (run it by hand to see), then rerun (the rerun that resumes the study runs "
                "these 5 trials again)");
  EXPECT_EQ(refused_again.calls, 5);
  // Failures that differ beyond their values, or a configuration that works: the budget runs.
  FnEvaluator varied([](int x) {
    EvalResult e;
    if (x == 5) return Complete({{"t", 1}});
    e.reason = "exit code 1: worker " + std::to_string(7 * x + 1) + " crashed";
    e.exit_error = true;
    return e;
  });
  store = MakeMemoryStorage();
  r = RunStudy(space, varied, *store, Options("t", 6));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->evaluations, 6);
}

}  // namespace
}  // namespace cprof::tune
