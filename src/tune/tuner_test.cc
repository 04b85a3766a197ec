// The study loop over replay and synthetic evaluators: budgets, reproducibility, resume, dead
// workers, concurrent workers on one SQLite study, racing, re-measurement, Pareto fronts.
// (The stores themselves: study_storage_test.cc; the ETA and --time: tuner_time_test.cc.)
#include "tune/tuner.h"

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <mutex>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>
#include <thread>

#include "testing/test_dir.h"
#include "tune/replay_evaluator.h"
#include "tune/sampler.h"
#include "tune/space_file.h"

namespace cprof::tune {
namespace {

const std::string kFixtures = CPROF_FIXTURES_DIR "/tuning";

struct Replay {
  SpaceFile file;
  std::unique_ptr<ReplayEvaluator> eval;
};

Replay OpenReplay(const std::string& name) {
  Replay r;
  auto f = LoadSpaceFile(kFixtures + "/" + name);
  EXPECT_TRUE(f.ok()) << f.status().message();
  r.file = std::move(f).value();
  auto e = ReplayEvaluator::Open(kFixtures + "/" + name, r.file.space, false);
  EXPECT_TRUE(e.ok()) << e.status().message();
  r.eval = std::move(e).value();
  return r;
}

TuneOptions Options(const std::string& study, int64_t budget, uint64_t seed = 1) {
  TuneOptions o;
  o.study_name = study;
  o.budget = budget;
  o.seed = seed;
  o.objectives = {{"time", false}};
  return o;
}

void ExpectNoDuplicates(const TuneResult& r) {
  std::set<std::map<std::string, std::string>> seen;
  for (const TrialSummary& t : r.trials)
    EXPECT_TRUE(seen.insert(t.params).second) << "trial " << t.number << " repeats a configuration";
}

TEST(TunerTest, ReplayIsReproducibleWithASeedAndCountsTheBudget) {
  Replay r = OpenReplay("convolution_RTX_3090.json.gz");
  auto run = [&](uint64_t seed) {
    auto store = MakeMemoryStorage();
    auto res = RunStudy(r.file.space, *r.eval, *store, Options("s", 30, seed));
    EXPECT_TRUE(res.ok()) << res.status().message();
    return std::move(res).value();
  };
  TuneResult a = run(5), b = run(5), c = run(6);
  EXPECT_EQ(a.evaluations, 30);
  ASSERT_EQ(a.trials.size(), b.trials.size());
  for (size_t i = 0; i < a.trials.size(); ++i) {
    EXPECT_EQ(a.trials[i].params, b.trials[i].params);
    EXPECT_EQ(a.trials[i].state, b.trials[i].state);
  }
  ASSERT_TRUE(a.best && b.best);
  EXPECT_EQ(a.trials[*a.best].metrics.at("time"), b.trials[*b.best].metrics.at("time"));
  bool differs = a.trials.size() != c.trials.size();
  for (size_t i = 0; !differs && i < a.trials.size(); ++i) differs = a.trials[i].params != c.trials[i].params;
  EXPECT_TRUE(differs) << "another seed should explore differently";
  int64_t evaluated = 0;
  for (const TrialSummary& t : a.trials)
    evaluated += t.state == TrialState::kComplete || t.state == TrialState::kFailed;
  EXPECT_EQ(evaluated, 30);  // infeasible (absent) configurations are free
  ExpectNoDuplicates(a);
  // The default configuration (the space has none from a cache file) is not required; the best is the
  // minimum.
  double min_time = INFINITY;
  for (const TrialSummary& t : a.trials)
    if (t.state == TrialState::kComplete) min_time = std::min(min_time, t.metrics.at("time"));
  EXPECT_EQ(a.trials[*a.best].metrics.at("time"), min_time);
}

// The study loop (storage records, snapshots extended in place between proposals) proposes
// exactly what the sampler does over a plain History it owns: the same trials in the same order.
TEST(TunerTest, ReplayStudyMatchesTheSamplersOwnLoop) {
  Replay r = OpenReplay("convolution_RTX_3090.json.gz");
  const int64_t budget = 40;
  const uint64_t seed = 11;
  auto store = MakeMemoryStorage();
  TuneOptions o = Options("loop", budget, seed);
  auto res = RunStudy(r.file.space, *r.eval, *store, o);
  ASSERT_TRUE(res.ok()) << res.status().message();

  auto sampler = MakeSampler(o.sampler, r.file.space, budget);
  ASSERT_TRUE(sampler.ok());
  History h;
  while (static_cast<int64_t>(h.evaluations()) < budget) {
    Rng rng = Rng::ForTrial(seed, h.size());
    auto c = (*sampler)->Propose(h, rng);
    ASSERT_TRUE(c.ok()) << c.status().message();
    EvalResult e = r.eval->Evaluate(r.file.space.Named(*c), rng);
    Observation ob{*c, r.file.space.Key(*c), e.state, std::nan(""), (*sampler)->last_label()};
    if (e.state == TrialState::kComplete) ob.y = e.metrics.at("time");
    h.Add(std::move(ob));
  }
  ASSERT_EQ(res->trials.size(), h.size());
  for (size_t i = 0; i < h.size(); ++i) {
    EXPECT_EQ(res->trials[i].params, r.file.space.Named(h.all()[i].config)) << "trial " << i;
    EXPECT_EQ(res->trials[i].state, h.all()[i].state) << "trial " << i;
  }
}

// convolution: a replay walks past configurations absent from the cache, stored as infeasible;
// `resumed` counts the evaluations only (it said 1,249 for 20 evaluations).
TEST(TunerTest, SqliteStudyResumesWithoutRepeating) {
  Replay r = OpenReplay("convolution_RTX_3090.json.gz");
  std::string db = "sqlite://" + TestFile("resume.db");
  {
    auto store = OpenStudyStorage(db);
    ASSERT_TRUE(store.ok()) << store.status().message();
    auto res = RunStudy(r.file.space, *r.eval, **store, Options("resume", 15));
    ASSERT_TRUE(res.ok()) << res.status().message();
    EXPECT_EQ(res->evaluations, 15);
  }
  auto store = OpenStudyStorage(db);
  ASSERT_TRUE(store.ok());
  auto res = RunStudy(r.file.space, *r.eval, **store, Options("resume", 25));
  ASSERT_TRUE(res.ok()) << res.status().message();
  EXPECT_EQ(res->evaluations, 25);
  EXPECT_EQ(res->resumed, 15);
  EXPECT_GT(std::count_if(res->trials.begin(), res->trials.end(),
                          [](const TrialSummary& t) { return t.state == TrialState::kInfeasible; }),
            20);
  ExpectNoDuplicates(*res);
  for (size_t i = 0; i < res->trials.size(); ++i) EXPECT_EQ(res->trials[i].number, static_cast<int64_t>(i));
  // Another space or objective under the same study name is refused.
  TuneOptions other = Options("resume", 30);
  other.objectives = {{"time", true}};
  auto refused = RunStudy(r.file.space, *r.eval, **store, other);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidInput);
}

// A row changed outside cann-profiler was read as a trial with no values (a complete trial with no
// metrics, a configuration of no parameters): the study refuses it and names the trial.
TEST(TunerTest, AStoredTrialChangedByHandIsRefused) {
  Replay r = OpenReplay("pnpoly_RTX_3090.json.gz");
  const std::string path = TestFile("hand.db");
  {
    auto store = OpenStudyStorage("sqlite://" + path);
    ASSERT_TRUE(store.ok()) << store.status().message();
    ASSERT_TRUE(RunStudy(r.file.space, *r.eval, **store, Options("hand", 5)).ok());
  }
  auto corrupt = [&](const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
    ASSERT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK) << sqlite3_errmsg(db);
    sqlite3_close(db);
  };
  auto resume = [&](int64_t budget) {
    auto store = OpenStudyStorage("sqlite://" + path);
    EXPECT_TRUE(store.ok());
    auto res = RunStudy(r.file.space, *r.eval, **store, Options("hand", budget));
    return res.ok() ? std::string("ok") : res.status().message();
  };
  corrupt("UPDATE cprof_tune_trials SET metrics = 'garbage' WHERE number = 2");
  EXPECT_EQ(resume(8).find("trial 2: its stored metrics (garbage) is not a JSON object of values"), 0u) << resume(8);
  corrupt("UPDATE cprof_tune_trials SET metrics = '{\"time\": 1.5}' WHERE number = 2");
  // Moved to a spare row of the same table (another table would make it another tool's file).
  corrupt("UPDATE cprof_tune_trials SET reason = coords, coords = '[1]' WHERE number = 3");
  EXPECT_EQ(resume(8).find("trial 3: its stored coords ([1]) is not an array of"), 0u) << resume(8);
  corrupt("UPDATE cprof_tune_trials SET coords = reason, reason = '' WHERE number = 3");
  EXPECT_EQ(resume(8), "ok");
}

TEST(TunerTest, TrialOfADeadWorkerIsRunAgain) {
  Replay r = OpenReplay("pnpoly_RTX_3090.json.gz");
  std::string db = TestFile("dead.db");
  auto store = OpenStudyStorage(db);
  ASSERT_TRUE(store.ok());
  TuneOptions opt = Options("dead", 5);
  auto id = (*store)->OpenStudy("dead", StudyFingerprint(r.file.space, opt.objectives, ""));
  ASSERT_TRUE(id.ok());
  // A trial reserved by a process that no longer exists (pid 0x7ffffff0 on this host).
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  Config c = (*r.file.space.Enumerated())[100];
  TrialRecord t;
  t.key = r.file.space.Key(c);
  nlohmann::json params = nlohmann::json::object(), coords = nlohmann::json::array();
  for (const auto& [k, v] : r.file.space.Named(c)) params[k] = v;
  for (double x : c) coords.push_back(x);
  t.params = params.dump();
  t.coords = coords.dump();
  t.worker = std::string(host) + ":2147483632:0";
  t.started_at = UnixNow();
  auto reserved = (*store)->Reserve(*id, t, 0);
  ASSERT_TRUE(reserved.ok() && reserved->has_value());
  auto res = RunStudy(r.file.space, *r.eval, **store, opt);
  ASSERT_TRUE(res.ok()) << res.status().message();
  EXPECT_EQ(res->evaluations, 5);
  EXPECT_NE(res->trials[0].state, TrialState::kPending);  // finished by the new run
  EXPECT_EQ(res->resumed, 0);  // it was run again, not resumed (the summary said "1 resumed")
  ExpectNoDuplicates(*res);
}

// A run whose budget is spent while another worker's trial still runs waits for it: it reports the
// whole study (a process that left early reported 6 of 10 trials) and would rerun it if that
// worker died.
TEST(TunerTest, ASpentBudgetWaitsForTrialsRunningElsewhere) {
  Replay r = OpenReplay("pnpoly_RTX_3090.json.gz");
  auto store = OpenStudyStorage("memory");
  ASSERT_TRUE(store.ok());
  TuneOptions opt = Options("wait", 1);
  opt.default_first = false;
  auto id = (*store)->OpenStudy("wait", StudyFingerprint(r.file.space, opt.objectives, ""));
  ASSERT_TRUE(id.ok());
  char host[256] = {0};
  ::gethostname(host, sizeof host - 1);
  Config c = (*r.file.space.Enumerated())[100];
  TrialRecord t;
  t.key = r.file.space.Key(c);
  nlohmann::json params = nlohmann::json::object(), coords = nlohmann::json::array();
  for (const auto& [k, v] : r.file.space.Named(c)) params[k] = v;
  for (double x : c) coords.push_back(x);
  t.params = params.dump();
  t.coords = coords.dump();
  t.worker = fmt::format("{}:{}:elsewhere", host, ::getpid());  // alive: this process
  t.started_at = UnixNow();
  auto reserved = (*store)->Reserve(*id, t, 0);
  ASSERT_TRUE(reserved.ok() && reserved->has_value());
  auto other_store = (*store)->Clone();  // one connection per thread
  ASSERT_TRUE(other_store.ok());
  std::thread other([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    TrialRecord done = **reserved;
    done.state = TrialState::kComplete;
    done.metrics = R"({"time": 2.5})";
    done.measurements = R"([{"time": 2.5}])";
    ASSERT_TRUE((*other_store)->Finish(done).ok());
  });
  auto res = RunStudy(r.file.space, *r.eval, **store, opt);
  other.join();
  ASSERT_TRUE(res.ok()) << res.status().message();
  EXPECT_EQ(res->evaluations, 1);
  ASSERT_EQ(res->trials.size(), 1u);
  EXPECT_EQ(res->trials[0].state, TrialState::kComplete);
  ASSERT_TRUE(res->best.has_value());
}

TEST(TunerTest, TwoWorkersOnOneSqliteStudy) {
  Replay r = OpenReplay("convolution_RTX_3090.json.gz");
  std::string db = "sqlite:///" + TestFile("two.db");
  // Two independent "processes" (own connections, own samplers), two worker threads each.
  auto work = [&](uint64_t seed) {
    auto store = OpenStudyStorage(db);
    ASSERT_TRUE(store.ok()) << store.status().message();
    TuneOptions o = Options("two", 60, seed);
    o.workers = 2;
    o.sampler = "tpe";  // cheap proposals: this test is about the store
    auto res = RunStudy(r.file.space, *r.eval, **store, o);
    ASSERT_TRUE(res.ok()) << res.status().message();
    EXPECT_EQ(res->evaluations, 60);  // each reports the whole study
  };
  std::thread a(work, 1), b(work, 2);
  a.join();
  b.join();
  auto store = OpenStudyStorage(db);
  TuneOptions o = Options("two", 60);
  o.sampler = "tpe";
  auto res = LoadStudy(r.file.space, **store, o);
  ASSERT_TRUE(res.ok());
  EXPECT_EQ(res->evaluations, 60);  // the store refuses past the budget
  ExpectNoDuplicates(*res);
  for (const TrialSummary& t : res->trials) EXPECT_NE(t.state, TrialState::kPending);
}

// Synthetic noisy evaluator: latency = base(x) + noise; a second metric for Pareto tests.
class NoisyEvaluator : public Evaluator {
 public:
  EvalResult Evaluate(const std::map<std::string, std::string>& p, Rng& rng) override {
    std::lock_guard<std::mutex> lock(mu_);
    double x = std::stod(p.at("x"));
    EvalResult r;
    r.state = TrialState::kComplete;
    r.metrics["latency_ms"] = 10 + (x - 6) * (x - 6) + 0.3 * rng.Normal();
    r.metrics["mem_mb"] = 100 - 5 * x;
    calls[p.at("x")]++;
    return r;
  }
  std::map<std::string, int> calls;
  std::mutex mu_;
};

SearchSpace LineSpace() {
  auto f =
      ParseSpaceYaml("parameters:\n  - {name: x, type: int, low: 0, high: 15, default: 0}\n", "line.yaml");
  EXPECT_TRUE(f.ok());
  return std::move(f).value().space;
}

// Only every `period`-th proposal exists (as where few of a replay's combinations do); the rest are
// infeasible at once.
class EveryNthExistsEvaluator : public Evaluator {
 public:
  explicit EveryNthExistsEvaluator(int period) : period_(period) {}
  EvalResult Evaluate(const std::map<std::string, std::string>&, Rng&) override {
    EvalResult r;
    r.state = ++calls_ % period_ == 0 ? TrialState::kComplete : TrialState::kInfeasible;
    if (r.state == TrialState::kComplete) r.metrics["time"] = 1.0 / calls_;
    return r;
  }

 private:
  int period_;
  int calls_ = 0;
};

// A study stops when max_infeasible proposals in a row were infeasible (its space seems to hold
// nothing more), however many it walked past in all while it still found configurations.
TEST(TunerTest, StopsAfterTooManyInfeasibleTrialsInARow) {
  auto f = ParseSpaceYaml("parameters:\n  - {name: x, type: int, low: 0, high: 255}\n", "wide.yaml");
  ASSERT_TRUE(f.ok());
  auto run = [&](int period) {
    EveryNthExistsEvaluator eval(period);
    auto store = OpenStudyStorage("memory");
    EXPECT_TRUE(store.ok());
    TuneOptions o = Options("walk", 10);
    o.sampler = "random";
    o.max_infeasible = 3;
    auto r = RunStudy(f->space, eval, **store, o);
    EXPECT_TRUE(r.ok()) << r.status().message();
    return std::move(r).value();
  };
  TuneResult walked = run(3);  // 2 infeasible before each of 10 evaluations: 20 in all
  EXPECT_EQ(walked.evaluations, 10);
  EXPECT_EQ(walked.trials.size(), 30u);
  TuneResult stuck = run(1000);  // nothing exists: stops after 3
  EXPECT_EQ(stuck.evaluations, 0);
  EXPECT_EQ(stuck.trials.size(), 3u);
}

// With several workers each progress line counts the study as its trial finished it: 1, 2, ... once
// each, not the same count twice when another worker finished in between.
TEST(TunerTest, ProgressCountsEachEvaluationOnceWithSeveralWorkers) {
  SearchSpace space = LineSpace();
  NoisyEvaluator eval;
  auto store = OpenStudyStorage("memory");
  ASSERT_TRUE(store.ok());
  TuneOptions o = Options("counts", 16);
  o.objectives = {{"latency_ms", false}};
  o.sampler = "random";
  o.workers = 4;
  std::vector<int64_t> counts;
  auto r = RunStudy(space, eval, **store, o, [&](const Progress& p) { counts.push_back(p.evaluations); });
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::sort(counts.begin(), counts.end());
  std::vector<int64_t> expected(16);
  std::iota(expected.begin(), expected.end(), 1);
  EXPECT_EQ(counts, expected);
}

TEST(TunerTest, RacingStopsClearlyWorseConfigurationsAndRemeasuresTheBest) {
  SearchSpace space = LineSpace();
  NoisyEvaluator eval;
  auto store = MakeMemoryStorage();
  TuneOptions o;
  o.study_name = "noisy";
  o.budget = 12;
  o.repeats = 5;
  o.remeasure_top = 2;
  o.remeasure_repeats = 5;
  o.objectives = {{"latency_ms", false}};
  o.sampler = "gp";
  auto res = RunStudy(space, eval, *store, o);
  ASSERT_TRUE(res.ok()) << res.status().message();
  ASSERT_TRUE(res->default_trial.has_value());
  EXPECT_EQ(res->trials[*res->default_trial].params.at("x"), "0");  // the default runs first
  int raced = 0;
  for (const TrialSummary& t : res->trials) raced += t.measurements.size() < 5;
  EXPECT_GT(raced, 0) << "no configuration was stopped early";
  // Candidates: the top 2, then the default (x = 0, 46 ms against ~10 near the best at x = 6,
  // noise sd 0.3): raced away after 2 fresh runs, the chosen one measured 5 times.
  ASSERT_EQ(res->remeasure_candidates.size(), 3u);
  EXPECT_EQ(res->remeasure_candidates[2].params.at("x"), "0");
  EXPECT_EQ(res->remeasure_candidates[2].n, 2u);
  EXPECT_TRUE(res->remeasure_candidates[2].raced_away);
  for (const Remeasured& m : res->remeasure_candidates) EXPECT_GE(m.n, 2u);
  // The recommendation is the best candidate's fresh mean; what is reported is the best and the
  // default measured again, 5 runs each.
  size_t chosen = 0;
  for (size_t k = 0; k < res->remeasure_candidates.size(); ++k)
    if (res->remeasure_candidates[k].mean < res->remeasure_candidates[chosen].mean) chosen = k;
  EXPECT_EQ(res->trials[*res->best].number, res->remeasure_candidates[chosen].number);
  EXPECT_EQ(res->remeasure_candidates[chosen].n, 5u);
  EXPECT_FALSE(res->remeasure_candidates[chosen].raced_away);
  ASSERT_EQ(res->remeasured.size(), 2u);
  ASSERT_TRUE(res->remeasured_best.has_value());
  EXPECT_EQ(*res->remeasured_best, 0u);
  const Remeasured& best = res->remeasured[0];
  EXPECT_EQ(best.role, "best");
  EXPECT_EQ(best.number, res->trials[*res->best].number);
  EXPECT_EQ(res->remeasured[1].role, "default");
  EXPECT_EQ(res->remeasured[1].params.at("x"), "0");
  EXPECT_EQ(RemeasuredOf(*res, *res->default_trial), &res->remeasured[1]);
  EXPECT_EQ(best.n, 5u);
  EXPECT_NE(best.mean, res->remeasure_candidates[chosen].mean);  // fresh runs, not the ones that chose
  double x = std::stod(best.params.at("x"));
  double truth = 10 + (x - 6) * (x - 6);
  EXPECT_LE(best.ci_low, truth + 0.5);
  EXPECT_GE(best.ci_high, truth - 0.5);
  EXPECT_LT(best.ci_low, best.ci_high);
}

TEST(TunerTest, SeveralObjectivesGiveAParetoFront) {
  SearchSpace space = LineSpace();
  NoisyEvaluator eval;
  auto store = MakeMemoryStorage();
  TuneOptions o;
  o.study_name = "pareto";
  o.budget = 16;  // the whole space
  o.objectives = {{"latency_ms", false}, {"mem_mb", false}};
  auto res = RunStudy(space, eval, *store, o);
  ASSERT_TRUE(res.ok()) << res.status().message();
  EXPECT_EQ(res->evaluations, 16);
  ASSERT_FALSE(res->pareto.empty());
  // Memory falls with x, latency is smallest near x = 6: the front is x >= ~6.
  for (size_t i : res->pareto) EXPECT_GE(std::stod(res->trials[i].params.at("x")), 5.0);
  std::set<std::string> front;
  for (size_t i : res->pareto) front.insert(res->trials[i].params.at("x"));
  EXPECT_TRUE(front.count("15"));  // least memory is always on the front
}

TEST(TunerTest, ObjectiveResolvedFromTheOnlyMetricOrRefused) {
  SearchSpace space = LineSpace();
  NoisyEvaluator eval;  // reports two metrics: an unnamed objective is ambiguous
  auto store = MakeMemoryStorage();
  TuneOptions o;
  o.study_name = "unnamed";
  o.budget = 3;
  auto res = RunStudy(space, eval, *store, o);
  ASSERT_FALSE(res.ok());
  EXPECT_NE(res.status().message().find("--objective"), std::string::npos);
  // The trial that showed it is recorded with the same reason (the study's only one: id 1).
  auto trials = store->LoadTrials(1);
  ASSERT_TRUE(trials.ok() && !trials->empty());
  EXPECT_EQ(trials->front().state, TrialState::kFailed);
  EXPECT_EQ(trials->front().reason, res.status().message());
}

// `fixes:` in the space file name the value that addresses a finding category; the guided start
// configuration is evaluated right after the default, before any sampler proposal.
TEST(TunerTest, GuidedStartRunsSecondAndSpaceFixesAreRead) {
  auto f = ParseSpaceYaml(
      "parameters:\n"
      "  - {name: x, type: int, low: 0, high: 15, default: 0, fixes: {thread_oversubscription: 6}}\n",
      "line.yaml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->fixes.count("thread_oversubscription"), 1u);
  EXPECT_EQ(f->fixes["thread_oversubscription"].at("x"), Value{int64_t{6}});
  auto start = f->space.FromValues({{"x", Value{int64_t{6}}}});
  ASSERT_TRUE(start.ok());
  NoisyEvaluator eval;
  auto store = MakeMemoryStorage();
  TuneOptions o;
  o.study_name = "guided";
  o.budget = 4;
  o.sampler = "random";
  o.objectives = {{"latency_ms", false}};
  o.start_configs = {*start};
  auto res = RunStudy(f->space, eval, *store, o);
  ASSERT_TRUE(res.ok()) << res.status().message();
  ASSERT_GE(res->trials.size(), 2u);
  EXPECT_EQ(res->trials[0].params.at("x"), "0");
  EXPECT_EQ(res->trials[0].sampler, "default");
  EXPECT_EQ(res->trials[1].params.at("x"), "6");
  EXPECT_EQ(res->trials[1].sampler, "guided");
  ExpectNoDuplicates(*res);
}

}  // namespace
}  // namespace cprof::tune
