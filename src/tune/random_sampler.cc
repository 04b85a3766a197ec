// Random search: uniform over the feasible unseen configurations. The baseline every other sampler
// must beat, and the source of their initial designs.
#include "tune/candidates.h"
#include "tune/sampler.h"

namespace cprof::tune {
namespace {

class RandomSampler final : public Sampler {
 public:
  explicit RandomSampler(const SearchSpace& space) : space_(space) {}
  std::string_view name() const override { return "random"; }
  StatusOr<Config> Propose(const History& history, Rng& rng) override {
    return ProposeRandomUnseen(space_, history, rng);
  }

 private:
  const SearchSpace& space_;
};

}  // namespace

std::unique_ptr<Sampler> MakeRandomSampler(const SearchSpace& space) { return std::make_unique<RandomSampler>(space); }

}  // namespace cprof::tune
