// History bookkeeping.
#include "tune/history.h"

namespace cprof::tune {

const char* TrialStateName(TrialState s) {
  switch (s) {
    case TrialState::kPending: return "running";
    case TrialState::kComplete: return "complete";
    case TrialState::kFailed: return "failed";
    case TrialState::kInfeasible: return "infeasible";
  }
  return "?";
}

std::optional<TrialState> TrialStateFromName(std::string_view name) {
  for (TrialState s : {TrialState::kPending, TrialState::kComplete, TrialState::kFailed, TrialState::kInfeasible})
    if (name == TrialStateName(s)) return s;
  return std::nullopt;
}

void History::Add(Observation o) {
  keys_.insert(o.key);
  if (o.state == TrialState::kComplete || o.state == TrialState::kFailed) ++evaluations_;
  if (o.state == TrialState::kInfeasible)
    ++infeasible_;
  else
    existing_.push_back(obs_.size());
  if (o.state == TrialState::kComplete && std::isfinite(o.y)) {
    ++complete_;
    if (!best_ || o.y < obs_[*best_].y) best_ = obs_.size();
  }
  obs_.push_back(std::move(o));
}

}  // namespace cprof::tune
