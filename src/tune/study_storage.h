// StudyStorage: where a study's trials live — SQLite (the default, one machine), PostgreSQL (many
// workers on many machines), or memory (benchmarks, tests).
//
//   ASSIGN_OR_RETURN(auto store, OpenStudyStorage("sqlite:///study.db"));
//   ASSIGN_OR_RETURN(int64_t study, store->OpenStudy("resnet-threads", fingerprint));
//   ASSIGN_OR_RETURN(std::optional<TrialRecord> t, store->Reserve(study, proposal, budget));  // nullopt: taken
//   ... run it ...
//   RETURN_IF_ERROR(store->Finish(*t));   // committed before it returns
//
// Guarantees, for every backend:
//   - a configuration (its key) appears at most once per study: Reserve is atomic across threads,
//     processes and machines (a UNIQUE constraint decides, not a read-then-write);
//   - trial numbers are 0, 1, 2, ... in reservation order, without gaps;
//   - a study never holds more than the budget's trials that count (not infeasible): Reserve
//     checks it in the same transaction, so processes sharing a study do not overshoot it;
//   - Finish is durable when it returns: kill -9 afterwards loses nothing.
// A running trial whose worker died (same host and its pid is gone, or no heartbeat for
// `stale_after` seconds) can be claimed by another worker, which reruns that configuration.
// One StudyStorage per thread: implementations hold one connection and are not thread-safe.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "tune/history.h"

namespace cprof::tune {

struct TrialRecord {
  int64_t id = 0;      // storage row id
  int64_t number = 0;  // 0-based order in the study
  std::string key;     // SearchSpace::Key
  std::string params;  // JSON object: name -> value text
  std::string coords;  // JSON array of coordinates (null = inactive)
  TrialState state = TrialState::kPending;
  std::string metrics;       // JSON object: name -> mean value (complete trials)
  std::string measurements;  // JSON array of per-repeat metric objects
  std::string reason;        // why it failed / is infeasible
  std::string sampler;       // which sampler proposed it
  std::string worker;        // "host:pid:tag" of the worker running it
  double started_at = 0;     // unix seconds
  double finished_at = 0;
  double heartbeat_at = 0;
};

class StudyStorage {
 public:
  virtual ~StudyStorage() = default;

  // Opens the named study, creating it when absent. A study keeps the fingerprint it was created
  // with (space + objectives); opening it with another one is kInvalidInput.
  virtual StatusOr<int64_t> OpenStudy(const std::string& name, const std::string& fingerprint) = 0;
  // The names of the studies in the store, oldest first.
  virtual StatusOr<std::vector<std::string>> StudyNames() = 0;
  // The trials of the study numbered from_number and up, by number. A finished trial (complete,
  // failed, infeasible) never changes, so a study loop re-reads only from its first unfinished one
  // (except the trials a study reopens as it stops for a wrong setup: see Finish).
  virtual StatusOr<std::vector<TrialRecord>> LoadTrialsFrom(int64_t study, int64_t from_number) = 0;
  // Every trial of the study, by number.
  StatusOr<std::vector<TrialRecord>> LoadTrials(int64_t study) { return LoadTrialsFrom(study, 0); }
  // Inserts `proposal` (key, params, coords, sampler, worker, state) with the next number, unless
  // the key is already in the study: then nullopt and nothing changes. With budget > 0, a study
  // that already holds `budget` trials which are not infeasible (running, complete, failed) is
  // full: kResourceLimit and nothing changes (the check and the insert are one transaction).
  virtual StatusOr<std::optional<TrialRecord>> Reserve(int64_t study, const TrialRecord& proposal,
                                                       int64_t budget) = 0;
  // Writes state, metrics, measurements, reason, finished_at of trial `t.id`. State running reopens
  // a finished trial (study_worker.cc, when the study's first trials failed alike: its setup is wrong,
  // not their configurations); the process doing so stops, and the next run claims it.
  virtual Status Finish(const TrialRecord& t) = 0;
  // Hands running trial `id` from `from_worker` to `to_worker` (compare-and-set); false if it is no
  // longer running under `from_worker`.
  virtual StatusOr<bool> Claim(int64_t id, const std::string& from_worker, const std::string& to_worker) = 0;
  // Marks the worker's running trials alive.
  virtual Status Heartbeat(int64_t study, const std::string& worker) = 0;
  // Opens another connection to the same store (one per worker thread).
  virtual StatusOr<std::unique_ptr<StudyStorage>> Clone() const = 0;
};

// "sqlite:///abs/path.db", "sqlite://rel/path.db", a plain path (an SQLite file, whatever its
// extension), "postgresql://..." / "postgres://..." (libpq connection URI), or "memory"
// ("memory://").
StatusOr<std::unique_ptr<StudyStorage>> OpenStudyStorage(const std::string& url);

std::unique_ptr<StudyStorage> MakeMemoryStorage();
StatusOr<std::unique_ptr<StudyStorage>> OpenSqliteStorage(const std::string& path);
StatusOr<std::unique_ptr<StudyStorage>> OpenPostgresStorage(const std::string& conninfo);

// Sets the finished trials `ids` (of `trials`) back to running under no worker, their outcomes
// cleared, so that the next run claims them and runs them again (the trials behind a stop for a
// wrong setup, which the user fixes and reruns).
Status ReopenTrials(StudyStorage& store, const std::vector<TrialRecord>& trials, const std::vector<int64_t>& ids);

// What Reserve returns for a study whose budget is spent (kResourceLimit).
Status BudgetSpent(int64_t budget);

// Seconds since the epoch, with sub-second precision.
double UnixNow();

}  // namespace cprof::tune
