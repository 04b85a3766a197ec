// The in-memory study storage: one database shared by its clones, as a file or server would be.
#include <algorithm>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "tune/study_storage.h"

namespace cprof::tune {

namespace {

struct MemoryDb {
  std::mutex mu;
  struct Study {
    std::string name, fingerprint;
    std::vector<TrialRecord> trials;
    std::unordered_set<std::string> keys;  // of trials: the UNIQUE (study, key) constraint
    int64_t counted = 0;                   // trials that count toward a budget: not infeasible
  };
  std::vector<Study> studies;
  int64_t next_trial_id = 1;
};

class MemoryStorage final : public StudyStorage {
 public:
  explicit MemoryStorage(std::shared_ptr<MemoryDb> db) : db_(std::move(db)) {}

  StatusOr<int64_t> OpenStudy(const std::string& name, const std::string& fingerprint) override {
    std::lock_guard<std::mutex> lock(db_->mu);
    for (size_t i = 0; i < db_->studies.size(); ++i) {
      if (db_->studies[i].name != name) continue;
      if (db_->studies[i].fingerprint != fingerprint)
        return InvalidInput("study '{}' exists with another search space, objective or command", name);
      return static_cast<int64_t>(i + 1);
    }
    db_->studies.push_back({name, fingerprint, {}, {}, 0});
    return static_cast<int64_t>(db_->studies.size());
  }

  StatusOr<std::vector<std::string>> StudyNames() override {
    std::lock_guard<std::mutex> lock(db_->mu);
    std::vector<std::string> out;
    for (const auto& s : db_->studies) out.push_back(s.name);
    return out;
  }

  StatusOr<std::vector<TrialRecord>> LoadTrialsFrom(int64_t study, int64_t from_number) override {
    std::lock_guard<std::mutex> lock(db_->mu);
    RETURN_IF_ERROR(Check(study));
    const auto& trials = db_->studies[study - 1].trials;  // by number, from 0
    const size_t from =
        static_cast<size_t>(std::clamp<int64_t>(from_number, 0, static_cast<int64_t>(trials.size())));
    return std::vector<TrialRecord>(trials.begin() + static_cast<std::ptrdiff_t>(from), trials.end());
  }

  StatusOr<std::optional<TrialRecord>> Reserve(int64_t study, const TrialRecord& proposal,
                                               int64_t budget) override {
    std::lock_guard<std::mutex> lock(db_->mu);
    RETURN_IF_ERROR(Check(study));
    auto& trials = db_->studies[study - 1].trials;
    if (db_->studies[study - 1].keys.count(proposal.key)) return std::optional<TrialRecord>();
    if (budget > 0 && db_->studies[study - 1].counted >= budget) return BudgetSpent(budget);
    db_->studies[study - 1].keys.insert(proposal.key);
    db_->studies[study - 1].counted += proposal.state != TrialState::kInfeasible;
    TrialRecord t = proposal;
    t.id = db_->next_trial_id++;
    t.number = static_cast<int64_t>(trials.size());
    trials.push_back(t);
    return std::optional<TrialRecord>(t);
  }

  Status Finish(const TrialRecord& t) override {
    std::lock_guard<std::mutex> lock(db_->mu);
    for (auto& s : db_->studies)
      for (TrialRecord& r : s.trials)
        if (r.id == t.id) {
          s.counted += (t.state != TrialState::kInfeasible) - (r.state != TrialState::kInfeasible);
          r.state = t.state;
          r.metrics = t.metrics;
          r.measurements = t.measurements;
          r.reason = t.reason;
          r.finished_at = t.finished_at;
          return Status::Ok();
        }
    return NotFound("trial {} not found", t.id);
  }

  StatusOr<bool> Claim(int64_t id, const std::string& from, const std::string& to) override {
    std::lock_guard<std::mutex> lock(db_->mu);
    for (auto& s : db_->studies)
      for (TrialRecord& r : s.trials)
        if (r.id == id) {
          if (r.state != TrialState::kPending || r.worker != from) return false;
          r.worker = to;
          r.started_at = r.heartbeat_at = UnixNow();
          return true;
        }
    return false;
  }

  Status Heartbeat(int64_t study, const std::string& worker) override {
    std::lock_guard<std::mutex> lock(db_->mu);
    RETURN_IF_ERROR(Check(study));
    for (TrialRecord& r : db_->studies[study - 1].trials)
      if (r.state == TrialState::kPending && r.worker == worker) r.heartbeat_at = UnixNow();
    return Status::Ok();
  }

  StatusOr<std::unique_ptr<StudyStorage>> Clone() const override {
    return std::unique_ptr<StudyStorage>(std::make_unique<MemoryStorage>(db_));
  }

 private:
  Status Check(int64_t study) const {
    if (study < 1 || static_cast<size_t>(study) > db_->studies.size()) return NotFound("no study {}", study);
    return Status::Ok();
  }
  std::shared_ptr<MemoryDb> db_;
};

}  // namespace

std::unique_ptr<StudyStorage> MakeMemoryStorage() {
  return std::make_unique<MemoryStorage>(std::make_shared<MemoryDb>());
}

}  // namespace cprof::tune
