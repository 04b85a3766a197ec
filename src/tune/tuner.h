// RunStudy: the tuning loop — propose, reserve, evaluate (with repeats and racing), record — on
// one or more worker threads over a shared study store, then re-measure the best.
//
//   TuneOptions opt;  opt.budget = 100;  opt.objectives = {{"latency_ms", false}};
//   ASSIGN_OR_RETURN(auto store, OpenStudyStorage("sqlite:///study.db"));
//   ASSIGN_OR_RETURN(TuneResult r, RunStudy(space, runner, *store, opt, on_progress));
//   r.trials[*r.best].params;
//
// Resuming: the study is named (options.study_name) and keyed by a fingerprint of the space and
// objectives; running it again continues where it stopped — finished trials are loaded, not
// rerun; trials left running by a dead worker (killed process, lost machine) are claimed and run
// again; the budget counts the whole study. Other processes may work on the same study at the same
// time (each reservation is atomic in the store): no configuration is ever evaluated twice.
// Reproducible: with one worker, the same seed gives the same trials.
// The library never prints: progress goes to the callback (called with no lock held, from the
// worker that finished the trial, one call at a time).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "base/time_units.h"
#include "tune/evaluator.h"
#include "tune/objective.h"
#include "tune/search_space.h"
#include "tune/study_storage.h"

namespace cprof::tune {

struct TuneOptions {
  std::string sampler = "auto";
  std::vector<ObjectiveSpec> objectives;  // at least one
  int64_t budget = 100;     // evaluations (complete + failed) in the whole study
  TimeNs time_limit_ns = 0;  // wall time of this run, re-measurement included (its expected time is kept for it); 0 = none
  int workers = 1;
  int repeats = 1;           // measurements per configuration; racing stops clearly worse ones early
  bool racing = true;
  int remeasure_top = 0;     // re-measure the best K configurations and the default at the end (remeasure.h)
  int remeasure_repeats = 5; // fresh measurements of each there, per stage (at least 3)
  uint64_t seed = 0;
  bool default_first = true;  // evaluate the space's default configuration first, when it has one
  // Configurations to evaluate next (after the default, before any sampler proposal), e.g. the
  // guided start of `tune --from_diagnosis`; infeasible ones and ones already in the study are skipped.
  std::vector<Config> start_configs;
  std::string study_name;
  std::string fingerprint_extra;  // mixed into the study fingerprint (e.g. the command line)
  double stale_after_s = 300;     // a running trial without heartbeat this long is taken over
  // A study stops after this many infeasible trials in a row: its space seems to hold nothing more
  // (a replay cache of other parameters, or one used up). It used to stop after 1,000 per
  // evaluation in all, which a replay of a hotspot-shaped space (1.6% of the combinations exist;
  // the GP walked past 2,000 a measurement at 100 evaluations) reached half-way through its budget.
  int64_t max_infeasible = 100000;
};

struct TrialSummary {
  int64_t number = 0;
  std::map<std::string, std::string> params;
  TrialState state = TrialState::kPending;
  std::map<std::string, double> metrics;                  // means over the measurements
  std::vector<std::map<std::string, double>> measurements;  // one per repeat
  std::string reason;
  std::string sampler;
  double seconds = 0;
};

struct Remeasured {
  int64_t number = 0;
  std::map<std::string, std::string> params;
  std::string objective;
  size_t n = 0;                              // fresh measurements (the search's are not among them)
  double mean = 0, ci_low = 0, ci_high = 0;  // 95% Student-t interval of the mean
  // With n < 2 there is no interval: ci_low and ci_high are the mean (n = 1) or 0 (n = 0), and
  // say nothing; show the mean alone (n = 1) or nothing (n = 0).
  std::string role;                          // "candidate" (chosen among), "best" or "default" (reported)
  bool raced_away = false;                   // a candidate measured no more: clearly worse than the best
  // Why it has fewer measurements than planned, other than racing: "--time ran out", "interrupted",
  // "2 runs failed: exit code 1: ..." (failed runs are left out); "" when it has them all.
  std::string shortfall;
  size_t failed_runs = 0;  // fresh runs that failed (a shortfall by --time alone has none)
  std::vector<double> values;  // the fresh measurements themselves, in the objective's units
};

// How the re-measurement ended (--time may leave it less than its expected time).
enum class RemeasureEnd {
  kNone,      // not run: --remeasure 0, nothing complete, or interrupted
  kWhole,     // every planned measurement was made (or raced away)
  kCutShort,  // --time ran out during it: the values have fewer measurements
  kSkipped,   // --time had run out when the search ended: the values are the search's
};

// When --time ended a search: seconds since the run started, and those kept for the
// re-measurement.
struct TimeLimitStop {
  double elapsed_s = 0;
  double reserved_s = 0;
};

struct TuneResult {
  std::string study_name;
  // The objectives as the study resolved them: the options', or the command's only metric.
  std::vector<ObjectiveSpec> objectives;
  std::vector<TrialSummary> trials;   // the whole study, by number
  // Index into trials: the best first objective; after re-measurement, the best candidate's mean.
  std::optional<size_t> best;
  std::vector<size_t> pareto;         // with several objectives: the non-dominated complete trials
  std::optional<size_t> default_trial;  // the default configuration's trial, when evaluated
  // The re-measurement (remeasure.h). Candidates: the top configurations, then the default if not
  // among them, measured afresh to choose the best. Remeasured: the chosen one, then the default
  // unless it is the chosen one, measured afresh again: the numbers to report.
  std::vector<Remeasured> remeasure_candidates;
  std::vector<Remeasured> remeasured;
  std::optional<size_t> remeasured_best;  // index into remeasured: the one `best` points at (0)
  RemeasureEnd remeasure_end = RemeasureEnd::kNone;
  // Trials that --time stopped before their first measurement: left running in the store, neither
  // complete nor failed (they say nothing about their configurations), so the run that resumes
  // the study runs them again. By number.
  std::vector<int64_t> stopped_at_time_limit;
  // Set when --time ended the search before the budget: the seconds run by then and those kept
  // for the re-measurement (RemeasureReserve at this run's pace), so the summary can say why the
  // study has fewer trials than its budget.
  std::optional<TimeLimitStop> search_stopped_for_time;
  // Set when --time left the re-measurement room to choose among fewer than remeasure_top
  // configurations (RemeasureTopWithin): how many it chose among.
  std::optional<int> remeasure_top_within_time;
  int64_t evaluations = 0;   // complete + failed in the study
  int64_t resumed = 0;       // evaluations already finished in the study when this run started
  int64_t run_here = 0;      // trials this run evaluated
};

// The reported re-measurement of r.trials[trial] (the best or the default), when it had one with at
// least one measurement.
const Remeasured* RemeasuredOf(const TuneResult& r, size_t trial);
// Why every run that measured `trial` again for the result failed (its shortfall); "" when it was
// not measured again, a run succeeded, or --time stopped it before its first run (no run failed).
// Its value is then the search's, not to be set against a fresh mean.
std::string FreshRunsFailed(const TuneResult& r, size_t trial);

struct Progress {
  int64_t evaluations = 0;
  int64_t budget = 0;
  // The one that just finished; null in the re-measurement. For an infeasible trial (free) only
  // `trial` and `budget` are set.
  const TrialSummary* trial = nullptr;
  // During the re-measurement at the end (after the search, inside --time), once per
  // configuration and stage as it finishes (its role says which: "candidate" is the first):
  // `evaluations` of the stage's `budget` configurations are done.
  const Remeasured* remeasured = nullptr;
  std::optional<double> best_value;     // first objective, in its own direction
  double eta_s = -1;                    // -1 when unknown; never past --time
};
using ProgressFn = std::function<void(const Progress&)>;

// Hash of everything that makes two studies comparable: parameters, constraints, objectives.
std::string StudyFingerprint(const SearchSpace& space, const std::vector<ObjectiveSpec>& objectives,
                             const std::string& extra);

StatusOr<TuneResult> RunStudy(const SearchSpace& space, Evaluator& evaluator, StudyStorage& storage,
                              const TuneOptions& options, const ProgressFn& progress = nullptr);

// The study as it is in storage (for reports, `--json` of a finished study, tests).
StatusOr<TuneResult> LoadStudy(const SearchSpace& space, StudyStorage& storage, const TuneOptions& options);

}  // namespace cprof::tune
