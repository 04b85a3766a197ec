// The shared state of one RunStudy call (tuner.h) and the helpers its workers read it with: the
// study's records as loaded from the store, the sampler's snapshot of them, the objectives as
// resolved from the first trial. Internal to src/tune; use tuner.h.
//
//   Study st(space, evaluator, options, progress);
//   std::lock_guard<std::mutex> lock(st.mu);
//   RETURN_IF_ERROR(RefreshTrials(st, store));                // st.trials as the store holds them
//   History& h = Snapshot(st, st.trials, rng);                // what the sampler proposes from
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "base/status.h"
#include "tune/evaluator.h"
#include "tune/history.h"
#include "tune/objective.h"
#include "tune/rng.h"
#include "tune/sampler.h"
#include "tune/search_space.h"
#include "tune/study_storage.h"
#include "tune/tuner.h"

namespace cprof::tune {
namespace study_run_internal {

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
  // Under mu: the mean duration of one measurement; nullopt before the first.
  std::optional<double> SecondsPerMeasurement() const {
    if (measurements <= 0) return std::nullopt;
    return measured_seconds / static_cast<double>(measurements);
  }
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  // --time: nothing is measured after it (Evaluator::SetDeadline); max() without a limit.
  std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max();
  // Under mu: trials the deadline stopped before a measurement (TuneResult::stopped_at_time_limit),
  // and whether the study stopped because its first trials failed alike (its setup is wrong): a
  // trial failing after that is left to the rerun, as those are.
  std::vector<int64_t> stopped_at_time_limit;
  bool setup_wrong = false;
  // Under mu: when --time ended the search, what the run had used and kept for the
  // re-measurement (TuneResult::search_stopped_for_time).
  std::optional<TimeLimitStop> search_stopped_for_time;

  std::mutex hb_mu;
  std::condition_variable hb_cv;
  bool hb_stop = false;
  std::vector<std::string> worker_ids;

  Study(const SearchSpace& s, Evaluator& e, const TuneOptions& o, const ProgressFn& p)
      : space(s), evaluator(e), opt(o), progress(p) {}
};

// Under st.mu: the study stops, with `error` unless a worker failed first.
void StopStudy(Study& st, const Status& error);

// The first of the options' start configurations that is feasible and not yet in the study.
const Config* NextStartConfig(const Study& st, const std::vector<TrialRecord>& trials);

// Under st.mu. Resolves an unnamed objective from what a trial reported (numbers, and values such
// as NaN that fail the trial but name the metric): the only one, or an error.
Status ResolveObjective(Study& st, const std::map<std::string, double>& metrics,
                        const std::map<std::string, std::string>& not_numbers = {});

// Under st.mu. The sampler's view of the study, kept in st.history. Several objectives are folded
// into one by an augmented Chebyshev scalarization with weights drawn per proposal (ParEGO),
// which depends on every trial: rebuilt each time. With one objective an observation depends on
// its own record alone, so the snapshot is extended with the records added since the last one,
// unless one seen before changed state (a trial another worker was running finished): then it is
// rebuilt.
History& Snapshot(Study& st, const std::vector<TrialRecord>& trials, Rng& rng);

// The first objective's (minimized) values of each measurement.
std::vector<double> PrimaryValues(const std::vector<ObjectiveSpec>& objs,
                                  const std::vector<std::map<std::string, double>>& ms);

// Brings st.trials up to date with the store (under st.mu), reading from the first unfinished one.
Status RefreshTrials(Study& st, StudyStorage& store);

}  // namespace study_run_internal
}  // namespace cprof::tune
