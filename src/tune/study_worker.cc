// One worker thread of a study run: each proposal is made from a fresh snapshot of the study and
// reserved atomically, so threads, processes and machines never repeat a trial.
#include "tune/study_worker.h"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <thread>
#include <vector>

#include "tune/remeasure.h"
#include "tune/study_summary.h"
#include "tune/trial_measurement.h"
#include "tune/trial_outcome.h"
#include "tune/trial_process.h"
#include "tune/trial_record_json.h"
#include "tune/worker_id.h"

namespace cprof::tune {
namespace study_run_internal {
namespace {

using nlohmann::json;

// What a worker does after TakeNextJob.
enum class NextJob {
  kRun,    // measure the job it took
  kRetry,  // take again at once
  kWait,   // take again after a pause: what is left runs elsewhere
  kStop,   // this worker is done
};

// From a worker holding no lock: the study stops, with `error` unless a worker failed first.
void Fail(Study& st, const Status& error) {
  std::lock_guard<std::mutex> lock(st.mu);
  StopStudy(st, error);
}

// Whether --time leaves room for another trial (always, without --time).
bool TimeLeftForAnotherTrial(Study& st) {
  if (st.opt.time_limit_ns <= 0) return true;
  // --time covers the whole run: the search leaves the re-measurement at the end its expected
  // time at this run's mean measurement, up to kRemeasureShareOfTime of the limit (beyond it the
  // re-measurement chooses among fewer). O(1): asked before every proposal (a replay makes ~100
  // free infeasible proposals per evaluation).
  // The count of complete trials is the last snapshot's: the re-measurement's candidates.
  std::lock_guard<std::mutex> lock(st.mu);
  std::chrono::nanoseconds reserve(0);
  if (const std::optional<double> pace = st.SecondsPerMeasurement())
    reserve = std::min(RemeasureReserve(st.opt, *pace, static_cast<int64_t>(st.history.complete())),
                       std::chrono::nanoseconds(static_cast<int64_t>(
                           kRemeasureShareOfTime * static_cast<double>(st.opt.time_limit_ns))));
  const auto elapsed = std::chrono::steady_clock::now() - st.start;
  if (elapsed + reserve < std::chrono::nanoseconds(st.opt.time_limit_ns)) return true;
  if (!st.search_stopped_for_time) {  // the first worker to see it says when and why
    st.search_stopped_for_time = TimeLimitStop{
        .elapsed_s = std::chrono::duration<double>(elapsed).count(),
        .reserved_s = std::chrono::duration<double>(reserve).count()};
  }
  return false;
}

// Under st.mu: an unnamed objective resolved from the study's first complete trial (resumed, or
// another worker's); a study whose trials report several metrics stops.
void ResolveObjectiveFromTrials(Study& st) {
  for (size_t i = 0; i < st.trials.size() && st.objectives.empty(); ++i)
    if (const TrialRecord& t = st.trials[i]; t.state == TrialState::kComplete) {
      Status s = ResolveObjective(st, ParseMetricsJson(t.metrics));
      if (!s.ok()) StopStudy(st, s);
    }
}

// Under st.mu: claims for `me` a trial whose worker died, into *job. false: none.
bool ClaimAbandonedTrial(Study& st, StudyStorage& store, const std::string& me, TrialRecord* job) {
  // A trial left running by a dead worker is run again: nothing is lost.
  double now = UnixNow();
  for (size_t i = st.final_prefix; i < st.trials.size(); ++i) {
    const TrialRecord& t = st.trials[i];
    if (t.state != TrialState::kPending || WorkerAlive(t, st.host, now, st.opt.stale_after_s)) continue;
    auto claimed = store.Claim(t.id, t.worker, me);
    if (claimed.ok() && *claimed) {
      *job = t;
      job->worker = me;
      job->started_at = UnixNow();  // as Claim wrote it: the measurement's time starts now
      return true;
    }
  }
  return false;
}

// Under st.mu: the configuration to try at this attempt and its label (*label): the default first
// while the study lacks it (TuneOptions::default_first, unless --no_default), then a start configuration,
// then the sampler's proposal. A study resumed with a space whose default changed runs the new one next: it
// was never run, and the study had no baseline. nullopt: the sampler proposes nothing; st.stop says whether
// the study ends.
std::optional<Config> NextProposal(Study& st, const History& h, int attempt, int64_t running,
                                   std::string* label) {
  const Config* start = attempt == 0 ? NextStartConfig(st, st.trials) : nullptr;
  auto lacks_default = [&] {  // from the start: the default is the first trial, found at once
    const std::optional<std::string> key = st.space.DefaultKey();
    return key && std::none_of(st.trials.begin(), st.trials.end(), [&](const TrialRecord& t) { return t.key == *key; });
  };
  if (st.opt.default_first && attempt == 0 && st.default_config && lacks_default()) {
    *label = "default";
    return *st.default_config;
  }
  if (start) {
    *label = "guided";
    return *start;
  }
  Rng prng = Rng::ForTrial(st.opt.seed + static_cast<uint64_t>(attempt) * 0x9e37, h.size());
  auto c = st.sampler->Propose(h, prng);
  if (!c.ok()) {
    if (c.status().code() == StatusCode::kNotFound) {
      st.stop = running == 0;  // exhausted
    } else {
      StopStudy(st, c.status());
    }
    return std::nullopt;
  }
  *label = st.sampler->last_label();
  return std::move(*c);
}

// The running record that reserves `proposal` for worker `me`.
TrialRecord PendingRecord(const Study& st, const Config& proposal, const std::string& label,
                          const std::string& me) {
  TrialRecord rec;
  rec.key = st.space.Key(proposal);
  json pj = json::object();
  for (const auto& [k, v] : st.space.Named(proposal)) pj[k] = v;
  rec.params = pj.dump();
  rec.coords = CoordsJson(proposal);
  rec.state = TrialState::kPending;
  rec.sampler = label;
  rec.worker = me;
  rec.started_at = UnixNow();
  return rec;
}

// Under st.mu: proposes configurations from `h` until the store reserves one for `me` (into *job).
NextJob ProposeAndReserve(Study& st, StudyStorage& store, const std::string& me, History& h, int64_t running,
                          TrialRecord* job) {
  bool spent = false;  // another process took the last of the budget since our snapshot
  for (int attempt = 0; attempt < 64; ++attempt) {
    std::string label;
    std::optional<Config> proposal = NextProposal(st, h, attempt, running, &label);
    if (!proposal) break;
    TrialRecord rec = PendingRecord(st, *proposal, label, me);
    auto reserved = store.Reserve(st.id, rec, st.opt.budget);
    if (!reserved.ok() && reserved.status().code() == StatusCode::kResourceLimit) {
      spent = true;
      break;
    }
    if (!reserved.ok()) {
      StopStudy(st, reserved.status());
      break;
    }
    if (*reserved) {
      *job = **reserved;
      return NextJob::kRun;
    }
    // Another worker reserved it since our snapshot.
    Observation o;
    o.config = *proposal;
    o.key = rec.key;
    o.state = TrialState::kPending;
    h.Add(std::move(o));
    st.history_k = SIZE_MAX;  // holds an entry no record gave: rebuild the next snapshot
  }
  if (st.stop) return NextJob::kStop;
  if (spent) return NextJob::kRetry;  // the next snapshot shows the full budget
  // Everything left is running elsewhere: wait for a result to change the picture.
  return NextJob::kWait;
}

// Takes the next trial for `me` under st.mu, from a fresh load of the study: a dead worker's, else
// a new proposal reserved in the store. kRun: *job is to be measured, racing against *incumbent
// (the best's values of the first objective; empty before a best).
NextJob TakeNextJob(Study& st, StudyStorage& store, const std::string& me, TrialRecord* job,
                    std::vector<double>* incumbent) {
  std::unique_lock<std::mutex> lock(st.mu);
  if (Status loaded = RefreshTrials(st, store); !loaded.ok()) {
    lock.unlock();
    Fail(st, loaded);
    return NextJob::kStop;
  }
  const std::vector<TrialRecord>& trials = st.trials;
  ResolveObjectiveFromTrials(st);
  if (st.stop) return NextJob::kStop;
  Rng rng = Rng::ForTrial(st.opt.seed, trials.size());
  History& h = Snapshot(st, trials, rng);
  if (h.best())  // a fresh snapshot: every entry came from a record
    *incumbent = PrimaryValues(st.objectives, Summarize(trials[st.history_rows[*h.best()]]).measurements);
  // Records before final_prefix are finished: neither running nor to be taken over.
  int64_t running = 0, infeasible_in_a_row = 0;
  for (size_t i = st.final_prefix; i < trials.size(); ++i) running += trials[i].state == TrialState::kPending;
  for (size_t i = trials.size(); i > 0 && trials[i - 1].state == TrialState::kInfeasible; --i) ++infeasible_in_a_row;
  if (ClaimAbandonedTrial(st, store, me, job)) return NextJob::kRun;
  if (infeasible_in_a_row >= st.opt.max_infeasible) return NextJob::kStop;
  if (static_cast<int64_t>(h.evaluations()) + running >= st.opt.budget) {
    if (running == 0) return NextJob::kStop;
    // The budget is spent but trials still run (other workers, processes or machines): wait
    // for them, so that this run reports the whole study, and reruns a trial whose worker
    // dies. A process that left early reported 6 to 10 trials of a 10-trial study.
    return NextJob::kWait;
  }
  return ProposeAndReserve(st, store, me, h, running, job);
}

// After Measure: whether the trial says nothing about its configuration and is released (running,
// under no worker) for the run that resumes the study; this worker stops then.
bool ReleasedForTheRerun(Study& st, StudyStorage& store, const std::string& me, const TrialRecord& job,
                         const Measured& seen) {
  if (seen.past_deadline) {
    // --time ran out during its first measurement: released for the run that resumes the study.
    std::lock_guard<std::mutex> lock(st.mu);
    st.stopped_at_time_limit.push_back(job.number);
    (void)store.Claim(job.id, me, "");
    return true;
  }
  if (job.state == TrialState::kFailed) {
    std::lock_guard<std::mutex> lock(st.mu);
    if (st.setup_wrong) {  // failed alike after the first ones, most likely: left to the rerun too
      (void)store.Claim(job.id, me, "");
      return true;
    }
  }
  if (seen.objective_absent) {
    // Maybe a misspelt --objective, or a command that prints none: every trial would fail. The
    // study stops, and the trial is released for the run that resumes it.
    std::lock_guard<std::mutex> lock(st.mu);
    Status loaded = RefreshTrials(st, store);
    if (std::optional<Status> usage = loaded.ok() ? ObjectiveNeverReported(st.trials, job) : loaded) {
      StopStudy(st, *usage);
      (void)store.Claim(job.id, me, "");
      return true;
    }
  }
  return false;
}

// After a trial that exited with an error was stored: stops the study when the first trials all
// failed alike (its setup is wrong, not the configurations).
void StopIfTheSetupIsWrong(Study& st, StudyStorage& store) {
  std::lock_guard<std::mutex> lock(st.mu);
  Status loaded = RefreshTrials(st, store);
  if (!loaded.ok()) {
    StopStudy(st, loaded);
  } else if (std::optional<StartFailure> usage = SameFailureFromTheStart(st.trials, st.space.DefaultKey())) {
    StopStudy(st, usage->usage);
    st.setup_wrong = true;
    // They say nothing about their configurations: reopened (running, its outcome cleared,
    // under no worker), so that the rerun after the fix runs them, the default first, within
    // the budget. The store holds them as finished until here; this run stops now.
    if (Status reopened = ReopenTrials(store, st.trials, usage->trials); !reopened.ok() && st.error.ok())
      st.error = reopened;
  }
}

// After Measure: the trial released (ReleasedForTheRerun) or stored, and the study stopped if its
// setup is wrong. false: this worker stops.
bool StoreOutcome(Study& st, StudyStorage& store, const std::string& me, const TrialRecord& job,
                  const Measured& seen) {
  if (ReleasedForTheRerun(st, store, me, job, seen)) return false;
  Status fin;
  {
    std::lock_guard<std::mutex> plock(st.progress_mu);
    fin = store.Finish(job);
    if (fin.ok()) st.committed.push_back(job.id);
  }
  if (!fin.ok()) {
    Fail(st, fin);
    return false;
  }
  // Exited with an error: maybe a command line the program refuses, or one that hangs.
  if (seen.exit_error) StopIfTheSetupIsWrong(st, store);
  return true;
}

// Under st.progress_mu, once this process evaluated a trial: the seconds left at its pace with
// `evaluations` of the budget done, within --time.
double EtaSeconds(const Study& st, int64_t evaluations) {
  int64_t left = std::max<int64_t>(0, st.opt.budget - evaluations);
  double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - st.start).count();
  const double per_evaluation = elapsed / static_cast<double>(st.evaluated_here);
  double eta = per_evaluation * static_cast<double>(left);
  // The re-measurement at the end runs after the last evaluation: its most runs at this pace (8
  // evaluations of 0.4 s said "eta 0 s" at 3 s of a run that ended at 9.9 s).
  // Its runs are one at a time: the pace of one measurement is a worker's, not the workers' together.
  const double per_measurement = per_evaluation * std::max(1, st.opt.workers) / std::max(1, st.opt.repeats);
  eta += 1e-9 * static_cast<double>(RemeasureReserve(st.opt, per_measurement, st.opt.budget).count());
  if (st.opt.time_limit_ns > 0)  // the run ends at --time, whatever the budget left
    eta = std::min(eta, std::max(0.0, 1e-9 * static_cast<double>(st.opt.time_limit_ns) - elapsed));
  return eta;
}

// Counts the stored trial and reports it to st.progress (one call at a time, under st.progress_mu).
void ReportProgress(Study& st, StudyStorage& store, const TrialRecord& job) {
  std::lock_guard<std::mutex> plock(st.progress_mu);
  st.run_here++;
  if (job.state != TrialState::kInfeasible) st.evaluated_here++;
  if (!st.progress) return;
  Progress pr;
  pr.budget = st.opt.budget;
  TrialSummary s = Summarize(job);
  pr.trial = &s;
  if (job.state == TrialState::kInfeasible) {
    // Free, and where hidden constraints are strict a hundred per evaluation: the study's
    // state is read for measured trials only (reading it after each of 13,000 infeasible
    // proposals took 2 of the 3 minutes of a 25-evaluation replay of a hotspot-shaped space).
    st.progress(pr);
    return;
  }
  auto trials = store.LoadTrials(st.id);
  if (!trials.ok()) return;
  std::vector<ObjectiveSpec> objs;
  bool reopened = false;
  {
    std::lock_guard<std::mutex> lock(st.mu);
    objs = st.objectives;
    reopened = st.setup_wrong;
  }
  // The study as this trial finished it: trials this process stored after it are left out
  // (counting them showed "[3/14]" twice and no "[2/14]" with several workers).
  // From the end: the job was stored moments ago, after every infeasible trial before it.
  const auto mine = std::find(st.committed.rbegin(), st.committed.rend(), job.id);
  const std::set<int64_t> later(st.committed.rbegin(), mine);
  const StudyTally tally = Tally(*trials, objs, later);
  pr.evaluations = tally.evaluations;
  // The first trials all failed alike and were reopened for the rerun: the store counts none of
  // them now ("[0/6] trial 4 failed"), so the line counts what this process ran.
  if (reopened) pr.evaluations = st.evaluated_here;
  pr.best_value = tally.best_value;
  if (st.evaluated_here > 0) pr.eta_s = EtaSeconds(st, pr.evaluations);
  st.progress(pr);
}

}  // namespace

void WorkerLoop(Study& st, StudyStorage& store, const std::string& me) {
  while (!st.stop && !TrialsInterrupted()) {
    if (!TimeLeftForAnotherTrial(st)) break;
    TrialRecord job;
    std::vector<double> incumbent;
    const NextJob next = TakeNextJob(st, store, me, &job, &incumbent);
    if (next == NextJob::kStop) break;
    if (next == NextJob::kRetry) continue;
    if (next == NextJob::kWait) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      continue;
    }
    const Measured seen = Measure(st, job, incumbent, static_cast<uint64_t>(job.number));
    // Interrupted: the trial stays running in the store; a rerun claims it from this dead worker.
    if (TrialsInterrupted()) break;
    if (!StoreOutcome(st, store, me, job, seen)) break;
    ReportProgress(st, store, job);
  }
}

}  // namespace study_run_internal
}  // namespace cprof::tune
