// The sampler registry: the one place that maps names to samplers.
#include "tune/sampler.h"

namespace cprof::tune {

std::vector<std::string> SamplerNames() { return {"auto", "gp", "tpe", "evolution", "random"}; }

StatusOr<std::unique_ptr<Sampler>> MakeSampler(std::string_view name, const SearchSpace& space, int64_t budget) {
  if (name == "auto") return MakeAutoSampler(space, budget);
  if (name == "gp") return MakeGpSampler(space);
  if (name == "tpe") return MakeTpeSampler(space);
  if (name == "evolution") return MakeEvolutionSampler(space);
  if (name == "random") return MakeRandomSampler(space);
  return InvalidInput("unknown sampler '{}' (choose auto, gp, tpe, evolution or random)", name);
}

}  // namespace cprof::tune
