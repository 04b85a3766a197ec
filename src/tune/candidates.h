// Candidates: feasible configurations no one has tried yet — what every sampler chooses among.
//
//   std::optional<Config> c = RandomUnseen(space, history, rng);      // uniform over the feasible set
//                                                                       // (log-uniform in a log parameter)
//   std::vector<Config> pool = CandidatePool(space, history, rng, 2000, {best});  // + neighbours
//
// Small discrete spaces are enumerated once (SearchSpace::Enumerated) and sampled exactly; larger
// ones by rejection (draw, canonicalize, keep if feasible and unseen).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "base/status.h"
#include "tune/absent_values.h"
#include "tune/history.h"
#include "tune/rng.h"
#include "tune/search_space.h"

namespace cprof::tune {

// A uniformly random feasible configuration not in history; nullopt when none could be found
// (the space is exhausted, or rejection sampling gave up after `max_tries`).
std::optional<Config> RandomUnseen(const SearchSpace& space, const History& history, Rng& rng,
                                   size_t max_tries = 20000);

// RandomUnseen as a sampler's proposal: NotFound when the space has nothing left to try.
StatusOr<Config> ProposeRandomUnseen(const SearchSpace& space, const History& history, Rng& rng);

// Up to `n_random` distinct random unseen feasible configurations (all of them when fewer are
// left), plus every unseen feasible neighbour of each config in `around`, and `extra`
// (filtered the same way). No duplicates. With `absent`, none holds a value it rules out.
std::vector<Config> CandidatePool(const SearchSpace& space, const History& history, Rng& rng, size_t n_random,
                                  const std::vector<Config>& around, const std::vector<Config>& extra = {},
                                  const AbsentValues* absent = nullptr);

// Whether a configuration may be proposed: canonical, feasible, unseen.
bool Proposable(const SearchSpace& space, const History& history, const Config& c);

// Candidates in a sampler's order of preference, made for one state of the study (`made_for`,
// such as how many trials were measured). Proposals walk down it: a configuration found not to
// exist (a hidden constraint; free in replay) is followed by the next candidate, not by the best
// of a fresh ranking, which would favour the same never-measured values again and again.
class Ranking {
 public:
  // `pool` ordered by `score`, highest first (ties keep the pool's order).
  void Set(std::vector<Config> pool, const std::vector<double>& score, size_t made_for);
  bool MadeFor(size_t state) const { return made_for_ == state; }
  // The next candidate the history has not seen (nor `absent` rules out); nullopt when the
  // ranking is used up.
  std::optional<Config> Next(const SearchSpace& space, const History& history, const AbsentValues* absent = nullptr);

 private:
  std::vector<Config> configs_;
  size_t next_ = 0;
  size_t made_for_ = SIZE_MAX;
};

}  // namespace cprof::tune
