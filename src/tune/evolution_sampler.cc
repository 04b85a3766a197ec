// Evolution with local search: a steady-state genetic algorithm over the measured population
// (tournament selection, uniform crossover, step mutations), biased toward hill-climbing from the
// best configuration, with mutation strength growing while the best has no untried neighbours.
#include <algorithm>
#include <cmath>

#include "tune/candidates.h"
#include "tune/sampler.h"
#include "tune/surrogate_data.h"

namespace cprof::tune {
namespace {

constexpr size_t kStartup = 8;
constexpr size_t kPopulation = 16;

class EvolutionSampler final : public Sampler {
 public:
  explicit EvolutionSampler(const SearchSpace& space) : space_(space) {}
  std::string_view name() const override { return "evolution"; }

  StatusOr<Config> Propose(const History& history, Rng& rng) override {
    SurrogateData data = CollectSurrogateData(history);
    if (data.complete < kStartup) return ProposeRandomUnseen(space_, history, rng);
    std::vector<const Config*> pop;
    for (size_t i = 0; i < std::min(kPopulation, data.order.size()); ++i)
      pop.push_back(&history.all()[data.rows[data.order[i]]].config);

    // Local search first: an untried neighbour of the best (or of the runners-up).
    if (rng.Bernoulli(0.5)) {
      for (size_t i = 0; i < std::min<size_t>(3, pop.size()); ++i) {
        std::vector<Config> nbrs = space_.Neighbors(*pop[i]);
        std::vector<size_t> open;
        for (size_t k = 0; k < nbrs.size(); ++k)
          if (!history.Seen(space_.Key(nbrs[k]))) open.push_back(k);
        if (!open.empty()) return nbrs[open[rng.Index(open.size())]];
      }
    }
    for (int attempt = 0; attempt < 200; ++attempt) {
      // Mutation strength grows with failed attempts: escape a local optimum gradually.
      int strength = 1 + attempt / 20;
      Config child = *Tournament(pop, rng);
      if (rng.Bernoulli(0.5) && pop.size() > 1) {
        const Config& other = *Tournament(pop, rng);
        for (size_t p = 0; p < child.size(); ++p)
          if (rng.Bernoulli(0.5)) child[p] = other[p];
      }
      Mutate(child, strength, rng);
      child = space_.Canonicalize(std::move(child), &rng);
      if (Proposable(space_, history, child)) return child;
    }
    return ProposeRandomUnseen(space_, history, rng);
  }

 private:
  // The best of three random members (pop is sorted best first).
  const Config* Tournament(const std::vector<const Config*>& pop, Rng& rng) const {
    size_t best = rng.Index(pop.size());
    for (int t = 0; t < 2; ++t) best = std::min(best, rng.Index(pop.size()));
    return pop[best];
  }

  void Mutate(Config& c, int strength, Rng& rng) const {
    const size_t d = space_.size();
    int moves = 0;
    for (int guard = 0; moves < strength && guard < 100; ++guard) {
      size_t p = rng.Index(d);
      const Parameter& par = space_.param(p);
      if (std::isnan(c[p]) || (!par.continuous() && par.cardinality() <= 1)) continue;
      if (par.continuous()) {
        c[p] = std::clamp(c[p] + 0.1 * strength * rng.Normal(), 0.0, 1.0);
      } else if (par.ordered()) {
        double step = 1 + static_cast<double>(rng.Index(static_cast<size_t>(strength)));
        double k = static_cast<double>(par.cardinality() - 1);
        c[p] = std::clamp(c[p] + (rng.Bernoulli(0.5) ? step : -step), 0.0, k);
      } else {
        c[p] = static_cast<double>(rng.Index(par.cardinality()));
      }
      ++moves;
    }
  }

  const SearchSpace& space_;
};

}  // namespace

std::unique_ptr<Sampler> MakeEvolutionSampler(const SearchSpace& space) {
  return std::make_unique<EvolutionSampler>(space);
}

}  // namespace cprof::tune
