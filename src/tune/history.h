// History: what a sampler knows about a study — every configuration tried or reserved, and how it went.
//
//   History h;
//   h.Add({config, space.Key(config), TrialState::kComplete, /*y=*/12.5, "gp"});
//   if (h.Seen(space.Key(c))) ...;   h.best();   h.evaluations();
//
// `y` is the scalar the samplers minimize (the tuner folds directions and several objectives into
// it). Pending entries are trials other workers are running now: not to be proposed again.
// Not thread-safe; the tuner hands each proposal a consistent snapshot.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <unordered_set>
#include <vector>

#include "tune/search_space.h"

namespace cprof::tune {

enum class TrialState {
  kPending,     // reserved, running somewhere
  kComplete,    // measured
  kFailed,      // crashed, timed out, errored, or no objective in its output: costs an evaluation
  kInfeasible,  // violates a hidden constraint (replay: absent from the cache): costs nothing
};

const char* TrialStateName(TrialState s);
std::optional<TrialState> TrialStateFromName(std::string_view name);

struct Observation {
  Config config;
  std::string key;
  TrialState state = TrialState::kPending;
  double y = std::nan("");  // minimized objective, when complete
  std::string sampler;      // which sampler proposed it ("auto" records the arm, e.g. "auto/gp")
};

class History {
 public:
  void Add(Observation o);
  const std::vector<Observation>& all() const { return obs_; }
  // Indices into all() of every observation that is not kInfeasible (running, measured or failed),
  // in order. Where hidden constraints are strict (replay of a space of which 2% exists) these are
  // a small part of all(), and the samplers' per-proposal passes over the history read only them.
  const std::vector<size_t>& existing() const { return existing_; }
  size_t size() const { return obs_.size(); }
  bool Seen(const std::string& key) const { return keys_.count(key) > 0; }
  // Complete + failed: what a budget counts.
  size_t evaluations() const { return evaluations_; }
  size_t complete() const { return complete_; }
  // Found not to exist (kInfeasible): free.
  size_t infeasible() const { return infeasible_; }
  // Index of the best complete observation.
  std::optional<size_t> best() const { return best_; }

 private:
  std::vector<Observation> obs_;
  std::vector<size_t> existing_;
  std::unordered_set<std::string> keys_;
  size_t evaluations_ = 0;
  size_t complete_ = 0;
  size_t infeasible_ = 0;
  std::optional<size_t> best_;
};

}  // namespace cprof::tune
