// Sampler: proposes the next configuration to evaluate. One file per sampler behind this interface;
// MakeSampler() is the one place that knows them all.
//
//   ASSIGN_OR_RETURN(std::unique_ptr<Sampler> s, MakeSampler("auto", space, /*budget=*/100));
//   Rng rng = Rng::ForTrial(seed, history.size());
//   ASSIGN_OR_RETURN(Config next, s->Propose(history, rng));
//
// Contract for every sampler:
//   - the proposal is canonical (space.Canonicalize), feasible (space.Feasible: constraints are
//     satisfied by construction, never penalized) and not in `history` (no duplicates; the tuner
//     puts other workers' running trials in history as pending);
//   - Propose depends only on (history, rng) and the construction arguments, so a resumed study
//     proposes what it would have; a sampler may cache work between calls but its answers must not
//     depend on the cache;
//   - NotFound when no feasible unseen configuration is left (the space is exhausted).
// A Sampler is used from one thread at a time; the space must outlive it.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tune/history.h"
#include "tune/rng.h"
#include "tune/search_space.h"

namespace cprof::tune {

class Sampler {
 public:
  virtual ~Sampler() = default;
  virtual std::string_view name() const = 0;
  virtual StatusOr<Config> Propose(const History& history, Rng& rng) = 0;
  // The label recorded with the last proposal (the portfolio names the arm that made it).
  virtual std::string last_label() const { return std::string(name()); }
};

// "auto" (the default), "gp", "tpe", "evolution", "random". `budget` is the number of evaluations
// the whole study will make (0 = unknown); a sampler may plan for it (auto keeps the GP arm alone
// in a study too short for its bandit to learn).
StatusOr<std::unique_ptr<Sampler>> MakeSampler(std::string_view name, const SearchSpace& space,
                                               int64_t budget = 0);
std::vector<std::string> SamplerNames();

// The concrete samplers (one .cc each).
std::unique_ptr<Sampler> MakeRandomSampler(const SearchSpace& space);
std::unique_ptr<Sampler> MakeTpeSampler(const SearchSpace& space);
std::unique_ptr<Sampler> MakeGpSampler(const SearchSpace& space);
std::unique_ptr<Sampler> MakeEvolutionSampler(const SearchSpace& space);
std::unique_ptr<Sampler> MakeAutoSampler(const SearchSpace& space, int64_t budget);

}  // namespace cprof::tune
