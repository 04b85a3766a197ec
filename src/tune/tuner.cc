// RunStudy: worker threads around a shared store; each proposal is made from a fresh snapshot of
// the study and reserved atomically, so threads, processes and machines never repeat a trial.
#include "tune/tuner.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>
#include <unordered_map>

#include "tune/racing.h"
#include "tune/remeasure.h"
#include "tune/sampler.h"
#include "tune/study_summary.h"
#include "tune/trial_outcome.h"
#include "tune/trial_record_json.h"
#include "tune/trial_runner.h"
#include "tune/worker_id.h"

namespace cprof::tune {
namespace {

using nlohmann::json;

// Shared state of one RunStudy call.
struct Study {
  const SearchSpace& space;
  Evaluator& evaluator;
  const TuneOptions& opt;
  const ProgressFn& progress;
  int64_t id = 0;
  std::string host;
  std::optional<Config> default_config;

  std::mutex mu;  // proposals, the sampler, objectives
  std::unique_ptr<Sampler> sampler;
  std::vector<ObjectiveSpec> objectives;  // resolved (may start empty: the command's only metric)
  // Parsed coordinates and metrics by trial id: a record's coords never change, and its metrics
  // are parsed again only when their text changed, not once per proposal (a replay of gemm
  // records 7,000+ infeasible trials for 100 evaluations).
  std::unordered_map<int64_t, std::optional<Config>> coords_cache;
  std::unordered_map<int64_t, std::pair<std::string, std::map<std::string, double>>> metrics_cache;  // text, parsed
  // The study's records as last loaded, by number. Those before final_prefix are finished, which
  // never changes, so each load reads the store only from there on (a replay study holds ~100
  // free infeasible records per evaluation: re-reading them all per proposal was quadratic).
  std::vector<TrialRecord> trials;
  size_t final_prefix = 0;
  // final_prefix when the last snapshot was taken: the records below it were finished then, so
  // the snapshot holds them as they will always be.
  size_t snapshot_finished = 0;
  // The last snapshot (see Snapshot), the (id, state) of each record it holds, in order, and the
  // number of objectives it was built with (SIZE_MAX: rebuild).
  History history;
  std::vector<std::pair<int64_t, TrialState>> history_ids;
  std::vector<size_t> history_rows;  // the record (index into trials) of each history entry
  size_t history_k = SIZE_MAX;
  Status error;                           // the first fatal error of any worker
  std::atomic<bool> stop{false};
  std::mutex progress_mu;
  std::vector<int64_t> committed;  // under progress_mu: the ids this process stored, in that order
  int64_t run_here = 0;
  // Evaluations (complete or failed) this process ran: the ETA is the wall time since the start
  // per evaluation (proposals, infeasible configurations and parallel workers included).
  int64_t evaluated_here = 0;
  // Wall time and count of the complete trials' measurements this process ran (under mu): the
  // mean duration of one measurement, from which --time keeps the re-measurement its time.
  double measured_seconds = 0;
  int64_t measurements = 0;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  // --time: nothing is measured after it (Evaluator::SetDeadline); max() without a limit.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Under mu: trials the deadline stopped before a measurement (TuneResult::stopped_at_time_limit),
  // and whether the study stopped because its first trials failed alike (its setup is wrong): a
  // trial failing after that is left to the rerun, as those are.
  std::vector<int64_t> stopped_at_time_limit;
  bool setup_wrong = false;

  std::mutex hb_mu;
  std::condition_variable hb_cv;
  bool hb_stop = false;
  std::vector<std::string> worker_ids;

  Study(const SearchSpace& s, Evaluator& e, const TuneOptions& o, const ProgressFn& p)
      : space(s), evaluator(e), opt(o), progress(p) {}
};

// The first of the options' start configurations that is feasible and not yet in the study.
const Config* NextStartConfig(const Study& st, const std::vector<TrialRecord>& trials) {
  for (const Config& c : st.opt.start_configs) {
    if (!st.space.Feasible(c)) continue;
    const std::string key = st.space.Key(c);
    if (std::none_of(trials.begin(), trials.end(), [&](const TrialRecord& t) { return t.key == key; })) return &c;
  }
  return nullptr;
}

// Resolves an unnamed objective from what a trial reported (numbers, and values such as NaN that
// fail the trial but name the metric): the only one, or an error.
Status ResolveObjective(Study& st, const std::map<std::string, double>& metrics,
                        const std::map<std::string, std::string>& not_numbers = {}) {
  std::set<std::string> names;
  for (const auto& [k, v] : metrics) names.insert(k);
  for (const auto& [k, v] : not_numbers) names.insert(k);
  if (!st.objectives.empty() || names.empty()) return Status::Ok();
  if (names.size() == 1) {
    st.objectives.push_back({*names.begin(), false});
    return Status::Ok();
  }
  return InvalidInput("the command reports several metrics ({}): choose one with --objective NAME:min|max",
                      fmt::join(names, ", "));
}

// The sampler's view of the study, kept in st.history. Several objectives are folded into one by
// an augmented Chebyshev scalarization with weights drawn per proposal (ParEGO), which depends on
// every trial: rebuilt each time. With one objective an observation depends on its own record
// alone, so the snapshot is extended with the records added since the last one, unless one seen
// before changed state (a trial another worker was running finished): then it is rebuilt.
History& Snapshot(Study& st, const std::vector<TrialRecord>& trials, Rng& rng) {
  const size_t k = st.objectives.size();
  size_t from = 0;
  if (k <= 1 && st.history_k == k && st.history_ids.size() <= trials.size()) {
    from = st.history_ids.size();
    // A replay can hold 100,000 records: those finished at the last snapshot are not compared.
    for (size_t i = std::min(st.snapshot_finished, from); i < from; ++i) {
      if (trials[i].id != st.history_ids[i].first || trials[i].state != st.history_ids[i].second) {
        from = 0;
        break;
      }
    }
  }
  if (from == 0) {
    st.history = History();
    st.history_ids.clear();
    st.history_rows.clear();
  }
  st.history_k = k;
  std::vector<std::optional<std::vector<double>>> vals(trials.size());
  std::vector<double> lo(k, INFINITY), hi(k, -INFINITY);
  for (size_t i = from; i < trials.size(); ++i) {
    if (trials[i].state != TrialState::kComplete || k == 0) continue;
    auto m = st.metrics_cache.find(trials[i].id);
    if (m == st.metrics_cache.end() || m->second.first != trials[i].metrics) {
      m = st.metrics_cache
              .insert_or_assign(trials[i].id, std::pair{trials[i].metrics, ParseMetricsJson(trials[i].metrics)})
              .first;
    }
    vals[i] = Minimized(st.objectives, m->second.second);
    if (vals[i])
      for (size_t o = 0; o < k; ++o) lo[o] = std::min(lo[o], (*vals[i])[o]), hi[o] = std::max(hi[o], (*vals[i])[o]);
  }
  std::vector<double> w(k, 1.0);
  if (k > 1) {
    double sum = 0;
    for (double& x : w) sum += x = -std::log(std::max(1e-12, rng.Uniform()));
    for (double& x : w) x /= sum;
  }
  for (size_t i = from; i < trials.size(); ++i) {
    const TrialRecord& t = trials[i];
    st.history_ids.emplace_back(t.id, t.state);
    Observation o;
    auto c = st.coords_cache.find(t.id);
    if (c == st.coords_cache.end()) c = st.coords_cache.emplace(t.id, ParseCoords(t.coords, st.space.size())).first;
    if (!c->second) continue;  // written by another version of the space: the fingerprint prevents this
    o.config = *c->second;
    o.key = t.key;
    o.state = t.state;
    o.sampler = t.sampler;
    st.history_rows.push_back(i);
    if (t.state == TrialState::kComplete) {
      if (!vals[i]) {
        o.state = TrialState::kFailed;
      } else if (k == 1) {
        o.y = (*vals[i])[0];
      } else {
        double mx = -INFINITY, sum = 0;
        for (size_t j = 0; j < k; ++j) {
          double n = hi[j] > lo[j] ? ((*vals[i])[j] - lo[j]) / (hi[j] - lo[j]) : 0.0;
          mx = std::max(mx, w[j] * n);
          sum += w[j] * n;
        }
        o.y = mx + 0.05 * sum;
      }
    }
    st.history.Add(std::move(o));
  }
  st.snapshot_finished = st.final_prefix;
  return st.history;
}

// The first objective's (minimized) values of each measurement.
std::vector<double> PrimaryValues(const std::vector<ObjectiveSpec>& objs,
                                  const std::vector<std::map<std::string, double>>& ms) {
  std::vector<double> out;
  if (objs.empty()) return out;
  for (const auto& m : ms) {
    auto v = Minimized({objs[0]}, m);
    if (v) out.push_back((*v)[0]);
  }
  return out;
}

// What Measure saw beyond the record's state and reason.
struct Measured {
  bool objective_absent = false;  // the command ran but did not print an objective (trial_outcome.h)
  bool exit_error = false;  // exited non-zero with a message, or timed out (EvalResult::exit_error, timed_out)
  bool past_deadline = false;  // --time stopped it before its first measurement: it says nothing
};

// Runs one configuration `repeats` times (fewer when racing shows it is clearly worse than the
// incumbent), and fills the record's outcome.
Measured Measure(Study& st, TrialRecord& t, const std::vector<double>& incumbent, uint64_t stream) {
  Measured seen;
  std::map<std::string, std::string> params;
  json p = json::parse(t.params, nullptr, false);
  for (const auto& [k, v] : p.items()) params[k] = v.get<std::string>();
  Rng rng = Rng::ForTrial(st.opt.seed ^ 0xe7a1, stream);
  std::vector<std::map<std::string, double>> ms;
  t.state = TrialState::kComplete;
  t.reason.clear();
  const int repeats = std::max(1, st.opt.repeats);
  for (int r = 0; r < repeats; ++r) {
    EvalResult res = st.evaluator.Evaluate(params, rng);
    if (res.past_deadline) {
      // Not the configuration's fault: with measurements it is complete on those, without it is
      // left to the rerun.
      seen.past_deadline = ms.empty();
      if (!ms.empty()) t.reason = fmt::format("cut short by --time after {} of {} repeats", r, repeats);
      break;
    }
    if (res.state != TrialState::kComplete) {
      t.state = res.state;
      t.reason = res.reason;
      seen.exit_error = res.exit_error || res.timed_out;
      break;
    }
    std::vector<ObjectiveSpec> objs;
    Status resolved;
    {
      std::lock_guard<std::mutex> lock(st.mu);
      resolved = ResolveObjective(st, res.metrics, res.not_numbers);
      if (!resolved.ok()) {
        if (st.error.ok()) st.error = resolved;
        st.stop = true;
      }
      objs = st.objectives;
    }
    if (!resolved.ok()) {  // the study stops with this error; the trial says the same
      t.state = TrialState::kFailed;
      t.reason = resolved.message();
      break;
    }
    if (std::optional<ObjectiveProblem> problem = CheckObjectives(objs, res)) {
      t.state = TrialState::kFailed;
      t.reason = problem->reason;
      // Absent from the first repeat on: maybe from every trial (WorkerLoop decides).
      seen.objective_absent = problem->absent && ms.empty();
      break;
    }
    ms.push_back(res.metrics);
    if (st.opt.racing && r + 1 < repeats && ClearlyWorse(PrimaryValues(objs, ms), incumbent)) {
      t.reason = fmt::format("raced out after {} of {} repeats", r + 1, repeats);
      break;
    }
  }
  json mj = json::array();
  std::map<std::string, double> mean;
  std::map<std::string, int> count;
  for (const auto& m : ms) {
    mj.push_back(json::parse(MetricsJson(m)));
    for (const auto& [k, v] : m) mean[k] += v, count[k]++;
  }
  for (auto& [k, v] : mean) v /= count[k];
  t.metrics = t.state == TrialState::kComplete ? MetricsJson(mean) : "";
  t.measurements = mj.dump();
  t.finished_at = UnixNow();
  if (t.state == TrialState::kComplete && !ms.empty()) {
    std::lock_guard<std::mutex> lock(st.mu);
    st.measured_seconds += std::max(0.0, t.finished_at - t.started_at);
    st.measurements += static_cast<int64_t>(ms.size());
  }
  return seen;
}

// Brings st.trials up to date with the store (under st.mu), reading from the first unfinished one.
Status RefreshTrials(Study& st, StudyStorage& store) {
  ASSIGN_OR_RETURN(std::vector<TrialRecord> fresh, store.LoadTrialsFrom(st.id, static_cast<int64_t>(st.final_prefix)));
  if (!fresh.empty() && fresh.front().number != static_cast<int64_t>(st.final_prefix)) {
    // Numbers are gapless by contract; if a store broke it, read everything again.
    st.final_prefix = 0;
    ASSIGN_OR_RETURN(fresh, store.LoadTrials(st.id));
  }
  st.trials.resize(st.final_prefix);
  for (TrialRecord& t : fresh) st.trials.push_back(std::move(t));
  while (st.final_prefix < st.trials.size() && st.trials[st.final_prefix].state != TrialState::kPending)
    ++st.final_prefix;
  return Status::Ok();
}

// One worker: until the budget is spent, the time is up, or the space is exhausted.
void WorkerLoop(Study& st, StudyStorage& store, const std::string& me) {
  auto fail = [&](const Status& s) {
    std::lock_guard<std::mutex> lock(st.mu);
    if (st.error.ok()) st.error = s;
    st.stop = true;
  };
  while (!st.stop && !TrialsInterrupted()) {
    if (st.opt.time_limit_ns > 0) {
      // --time covers the whole run: the search leaves the re-measurement at the end its expected
      // time, at this run's mean measurement. O(1): asked before every proposal (a replay makes ~100
      // free infeasible proposals per evaluation).
      std::chrono::nanoseconds reserve(0);
      {
        std::lock_guard<std::mutex> lock(st.mu);
        if (st.measurements > 0)
          reserve = RemeasureReserve(st.opt, st.measured_seconds / static_cast<double>(st.measurements));
      }
      if (std::chrono::steady_clock::now() - st.start + reserve >= std::chrono::nanoseconds(st.opt.time_limit_ns))
        break;
    }
    TrialRecord job;
    std::vector<double> incumbent;
    uint64_t stream = 0;
    {
      std::unique_lock<std::mutex> lock(st.mu);
      if (Status loaded = RefreshTrials(st, store); !loaded.ok()) {
        lock.unlock();
        fail(loaded);
        break;
      }
      const std::vector<TrialRecord>& trials = st.trials;
      for (size_t i = 0; i < trials.size() && st.objectives.empty(); ++i)
        if (const TrialRecord& t = trials[i]; t.state == TrialState::kComplete) {
          Status s = ResolveObjective(st, ParseMetricsJson(t.metrics));
          if (!s.ok()) {
            if (st.error.ok()) st.error = s;
            st.stop = true;
          }
        }
      if (st.stop) break;
      Rng rng = Rng::ForTrial(st.opt.seed, trials.size());
      History& h = Snapshot(st, trials, rng);
      if (h.best())  // a fresh snapshot: every entry came from a record
        incumbent = PrimaryValues(st.objectives, Summarize(trials[st.history_rows[*h.best()]]).measurements);
      // Records before final_prefix are finished: neither running nor to be taken over.
      int64_t running = 0, infeasible_in_a_row = 0;
      for (size_t i = st.final_prefix; i < trials.size(); ++i) running += trials[i].state == TrialState::kPending;
      for (size_t i = trials.size(); i > 0 && trials[i - 1].state == TrialState::kInfeasible; --i) ++infeasible_in_a_row;
      // A trial left running by a dead worker is run again: nothing is lost.
      bool have = false;
      double now = UnixNow();
      for (size_t i = st.final_prefix; i < trials.size(); ++i) {
        const TrialRecord& t = trials[i];
        if (t.state != TrialState::kPending || WorkerAlive(t, st.host, now, st.opt.stale_after_s)) continue;
        auto claimed = store.Claim(t.id, t.worker, me);
        if (claimed.ok() && *claimed) {
          job = t;
          job.worker = me;
          job.started_at = UnixNow();  // as Claim wrote it: the measurement's time starts now
          have = true;
          break;
        }
      }
      if (!have) {
        if (infeasible_in_a_row >= st.opt.max_infeasible) break;
        if (static_cast<int64_t>(h.evaluations()) + running >= st.opt.budget) {
          if (running == 0) break;
          // The budget is spent but trials still run (other workers, processes or machines): wait
          // for them, so that this run reports the whole study, and reruns a trial whose worker
          // dies. A process that left early reported 6 to 10 trials of a 10-trial study.
          lock.unlock();
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          continue;
        }
        bool spent = false;  // another process took the last of the budget since our snapshot
        for (int attempt = 0; attempt < 64 && !have && !spent; ++attempt) {
          std::optional<Config> proposal;
          std::string label;
          const Config* start = attempt == 0 ? NextStartConfig(st, trials) : nullptr;
          if (st.opt.default_first && trials.empty() && attempt == 0 && st.default_config) {
            proposal = *st.default_config;
            label = "default";
          } else if (start) {
            proposal = *start;
            label = "guided";
          } else {
            Rng prng = Rng::ForTrial(st.opt.seed + static_cast<uint64_t>(attempt) * 0x9e37, h.size());
            auto c = st.sampler->Propose(h, prng);
            if (!c.ok()) {
              if (c.status().code() == StatusCode::kNotFound) st.stop = running == 0;  // exhausted
              else {
                if (st.error.ok()) st.error = c.status();
                st.stop = true;
              }
              break;
            }
            proposal = std::move(*c);
            label = st.sampler->last_label();
          }
          TrialRecord rec;
          rec.key = st.space.Key(*proposal);
          json pj = json::object();
          for (const auto& [k, v] : st.space.Named(*proposal)) pj[k] = v;
          rec.params = pj.dump();
          rec.coords = CoordsJson(*proposal);
          rec.state = TrialState::kPending;
          rec.sampler = label;
          rec.worker = me;
          rec.started_at = UnixNow();
          auto reserved = store.Reserve(st.id, rec, st.opt.budget);
          if (!reserved.ok() && reserved.status().code() == StatusCode::kResourceLimit) {
            spent = true;
            break;
          }
          if (!reserved.ok()) {
            if (st.error.ok()) st.error = reserved.status();
            st.stop = true;
            break;
          }
          if (*reserved) {
            job = **reserved;
            have = true;
          } else {  // another worker reserved it since our snapshot
            Observation o;
            o.config = *proposal;
            o.key = rec.key;
            o.state = TrialState::kPending;
            h.Add(std::move(o));
            st.history_k = SIZE_MAX;  // holds an entry no record gave: rebuild the next snapshot
          }
        }
        if (!have) {
          if (st.stop) break;
          if (spent) continue;  // the next snapshot shows the full budget
          // Everything left is running elsewhere: wait for a result to change the picture.
          lock.unlock();
          std::this_thread::sleep_for(std::chrono::milliseconds(200));
          continue;
        }
      }
      stream = static_cast<uint64_t>(job.number);
    }
    const Measured seen = Measure(st, job, incumbent, stream);
    // Interrupted: the trial stays running in the store; a rerun claims it from this dead worker.
    if (TrialsInterrupted()) break;
    if (seen.past_deadline) {
      // --time ran out during its first measurement: released for the run that resumes the study.
      std::lock_guard<std::mutex> lock(st.mu);
      st.stopped_at_time_limit.push_back(job.number);
      (void)store.Claim(job.id, me, "");
      break;
    }
    if (job.state == TrialState::kFailed) {
      std::lock_guard<std::mutex> lock(st.mu);
      if (st.setup_wrong) {  // failed alike after the first ones, most likely: left to the rerun too
        (void)store.Claim(job.id, me, "");
        break;
      }
    }
    if (seen.objective_absent) {
      // Maybe a misspelt --objective, or a command that prints none: every trial would fail. The
      // study stops, and the trial is released for the run that resumes it.
      std::lock_guard<std::mutex> lock(st.mu);
      Status loaded = RefreshTrials(st, store);
      if (std::optional<Status> usage = loaded.ok() ? ObjectiveNeverReported(st.trials, job) : loaded) {
        if (st.error.ok()) st.error = *usage;
        st.stop = true;
        (void)store.Claim(job.id, me, "");
        break;
      }
    }
    Status fin;
    {
      std::lock_guard<std::mutex> plock(st.progress_mu);
      fin = store.Finish(job);
      if (fin.ok()) st.committed.push_back(job.id);
    }
    if (!fin.ok()) {
      fail(fin);
      break;
    }
    if (seen.exit_error) {  // maybe a command line the program refuses, or one that hangs
      std::lock_guard<std::mutex> lock(st.mu);
      Status loaded = RefreshTrials(st, store);
      if (!loaded.ok()) {
        if (st.error.ok()) st.error = loaded;
        st.stop = true;
      } else if (std::optional<StartFailure> usage = SameFailureFromTheStart(st.trials, st.space.DefaultKey())) {
        if (st.error.ok()) st.error = usage->usage;
        st.stop = true;
        st.setup_wrong = true;
        // They say nothing about their configurations: reopened (running, its outcome cleared,
        // under no worker), so that the rerun after the fix runs them, the default first, within
        // the budget. The store holds them as finished until here; this run stops now.
        if (Status reopened = ReopenTrials(store, st.trials, usage->trials); !reopened.ok() && st.error.ok())
          st.error = reopened;
      }
    }
    {
      std::lock_guard<std::mutex> plock(st.progress_mu);
      st.run_here++;
      if (job.state != TrialState::kInfeasible) st.evaluated_here++;
      if (st.progress && job.state == TrialState::kInfeasible) {
        // Free, and where hidden constraints are strict a hundred per evaluation: the study's
        // state is read for measured trials only (reading it after each of 13,000 infeasible
        // proposals took 2 of the 3 minutes of a 25-evaluation replay of a hotspot-shaped space).
        Progress pr;
        pr.budget = st.opt.budget;
        TrialSummary s = Summarize(job);
        pr.trial = &s;
        st.progress(pr);
      } else if (st.progress) {
        auto trials = store.LoadTrials(st.id);
        if (trials.ok()) {
          Progress pr;
          pr.budget = st.opt.budget;
          TrialSummary s = Summarize(job);
          pr.trial = &s;
          std::vector<ObjectiveSpec> objs;
          {
            std::lock_guard<std::mutex> lock(st.mu);
            objs = st.objectives;
          }
          // The study as this trial finished it: trials this process stored after it are left out
          // (counting them showed "[3/14]" twice and no "[2/14]" with several workers).
          // From the end: the job was stored moments ago, after every infeasible trial before it.
          const auto mine = std::find(st.committed.rbegin(), st.committed.rend(), job.id);
          const std::set<int64_t> later(st.committed.rbegin(), mine);
          const StudyTally tally = Tally(*trials, objs, later);
          pr.evaluations = tally.evaluations;
          pr.best_value = tally.best_value;
          int64_t left = std::max<int64_t>(0, st.opt.budget - pr.evaluations);
          if (st.evaluated_here > 0) {
            double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - st.start).count();
            pr.eta_s = elapsed / static_cast<double>(st.evaluated_here) * static_cast<double>(left);
            if (st.opt.time_limit_ns > 0)  // the run ends at --time, whatever the budget left
              pr.eta_s = std::min(pr.eta_s, std::max(0.0, 1e-9 * static_cast<double>(st.opt.time_limit_ns) - elapsed));
          }
          st.progress(pr);
        }
      }
    }
  }
}

void Heartbeats(Study& st, StudyStorage& store) {
  std::unique_lock<std::mutex> lock(st.hb_mu);
  const auto period = std::chrono::duration<double>(std::clamp(st.opt.stale_after_s / 4, 0.5, 10.0));
  while (!st.hb_cv.wait_for(lock, period, [&] { return st.hb_stop; })) {
    for (const std::string& w : st.worker_ids) (void)store.Heartbeat(st.id, w);
  }
}

}  // namespace

StatusOr<TuneResult> RunStudy(const SearchSpace& space, Evaluator& evaluator, StudyStorage& storage,
                              const TuneOptions& options, const ProgressFn& progress) {
  if (options.budget <= 0) return InvalidInput("--budget must be positive");
  if (options.workers < 1) return InvalidInput("--workers must be at least 1");
  if (options.study_name.empty()) return InvalidInput("a study needs a name");
  Study st(space, evaluator, options, progress);
  st.objectives = options.objectives;
  if (options.time_limit_ns > 0) st.deadline = st.start + std::chrono::nanoseconds(options.time_limit_ns);
  evaluator.SetDeadline(st.deadline);
  st.host = HostName();
  st.default_config = space.DefaultConfig();
  ASSIGN_OR_RETURN(st.sampler, MakeSampler(options.sampler, space, options.budget));
  ASSIGN_OR_RETURN(st.id, storage.OpenStudy(options.study_name,
                                            StudyFingerprint(space, options.objectives, options.fingerprint_extra)));
  ASSIGN_OR_RETURN(std::vector<TrialRecord> before, storage.LoadTrials(st.id));

  std::vector<std::unique_ptr<StudyStorage>> stores;
  for (int w = 0; w < options.workers; ++w) {
    ASSIGN_OR_RETURN(auto s, storage.Clone());
    stores.push_back(std::move(s));
    st.worker_ids.push_back(NewWorkerId(st.host, w));
  }
  ASSIGN_OR_RETURN(auto hb_store, storage.Clone());
  std::thread hb([&] { Heartbeats(st, *hb_store); });
  std::vector<std::thread> workers;
  for (int w = 0; w < options.workers; ++w)
    workers.emplace_back([&, w] { WorkerLoop(st, *stores[w], st.worker_ids[w]); });
  for (auto& t : workers) t.join();
  {
    std::lock_guard<std::mutex> lock(st.hb_mu);
    st.hb_stop = true;
  }
  st.hb_cv.notify_all();
  hb.join();
  if (!st.error.ok()) return st.error;

  ASSIGN_OR_RETURN(TuneResult result, LoadStudy(space, storage, options));
  // Finished trials only: one left pending by a killed run is run again here, not resumed.
  result.resumed = std::count_if(before.begin(), before.end(),
                                 [](const TrialRecord& t) { return t.state != TrialState::kPending; });
  result.run_here = st.run_here;
  result.stopped_at_time_limit = st.stopped_at_time_limit;
  std::sort(result.stopped_at_time_limit.begin(), result.stopped_at_time_limit.end());

  if (options.remeasure_top > 0 && !st.objectives.empty() && !TrialsInterrupted())
    RemeasureBest(options, st.objectives[0], evaluator, progress, &result, st.deadline);
  return result;
}

}  // namespace cprof::tune
