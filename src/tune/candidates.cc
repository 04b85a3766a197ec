// Candidate generation: exact sampling over enumerated spaces, rejection sampling otherwise (and
// where a parameter is log-scaled, which exact sampling over configurations would ignore).
#include "tune/candidates.h"

#include <algorithm>
#include <numeric>
#include <unordered_set>

namespace cprof::tune {

bool Proposable(const SearchSpace& space, const History& history, const Config& c) {
  return space.Feasible(c) && !history.Seen(space.Key(c));
}

namespace {

// Indices of every unseen enumerated configuration.
std::vector<size_t> AllUnseen(const std::vector<std::string>& keys, const History& history) {
  std::vector<size_t> out;
  for (size_t i = 0; i < keys.size(); ++i)
    if (!history.Seen(keys[i])) out.push_back(i);
  return out;
}

// A log-scaled int or float parameter: drawing a configuration uniformly from the enumerated ones
// draws such a parameter uniformly over its values (batch 1..4096, log: 0 of 30 draws at 64 or
// less), so it is drawn parameter by parameter, as its scale says.
bool HasLogScale(const SearchSpace& space) {
  return std::any_of(space.params().begin(), space.params().end(), [](const Parameter& p) {
    return p.log && (p.type == ParamType::kInt || p.type == ParamType::kFloat);
  });
}

}  // namespace

std::optional<Config> RandomUnseen(const SearchSpace& space, const History& history, Rng& rng, size_t max_tries) {
  if (const auto* all = space.Enumerated()) {
    const auto& keys = *space.EnumeratedKeys();
    if (all->empty()) return std::nullopt;
    const bool log_scale = HasLogScale(space);
    for (int t = 0; t < 64 && log_scale; ++t) {
      Config c = space.Canonicalize(space.SampleUniform(rng), &rng);
      if (Proposable(space, history, c)) return c;
    }
    for (int t = 0; t < 64; ++t) {
      size_t i = rng.Index(all->size());
      if (!history.Seen(keys[i])) return (*all)[i];
    }
    std::vector<size_t> unseen = AllUnseen(keys, history);
    if (unseen.empty()) return std::nullopt;
    return (*all)[unseen[rng.Index(unseen.size())]];
  }
  for (size_t t = 0; t < max_tries; ++t) {
    Config c = space.Canonicalize(space.SampleUniform(rng), &rng);
    if (Proposable(space, history, c)) return c;
  }
  return std::nullopt;
}

StatusOr<Config> ProposeRandomUnseen(const SearchSpace& space, const History& history, Rng& rng) {
  std::optional<Config> c = RandomUnseen(space, history, rng);
  if (!c) return NotFound("no feasible configuration left to try");
  return *c;
}

std::vector<Config> CandidatePool(const SearchSpace& space, const History& history, Rng& rng, size_t n_random,
                                  const std::vector<Config>& around, const std::vector<Config>& extra,
                                  const AbsentValues* absent) {
  std::vector<Config> out;
  std::unordered_set<std::string> taken;
  auto add = [&](const Config& c, const std::string& key) {
    if ((absent && absent->RulesOut(c)) || history.Seen(key) || !taken.insert(key).second) return;
    out.push_back(c);
  };
  if (const auto* all = space.Enumerated()) {
    const auto& keys = *space.EnumeratedKeys();
    size_t left = all->size() > history.size() ? all->size() - history.size() : 0;
    if (left <= 2 * n_random) {
      std::vector<size_t> unseen = AllUnseen(keys, history);
      // Fisher-Yates, partial when more are left than asked for: n_random distinct, uniformly, in
      // random order, also when all are taken: a sampler that takes the pool's first (the design's
      // first point) must not start every study of a small space at the enumeration's first corner.
      const size_t take = std::min(n_random, unseen.size());
      for (size_t i = 0; i < take; ++i) std::swap(unseen[i], unseen[i + rng.Index(unseen.size() - i)]);
      unseen.resize(take);
      for (size_t i : unseen) add((*all)[i], keys[i]);
    } else {
      const bool log_scale = HasLogScale(space);
      for (size_t t = 0; t < 20 * n_random && out.size() < n_random && log_scale; ++t) {
        Config c = space.Canonicalize(space.SampleUniform(rng), &rng);
        if (space.Feasible(c)) add(c, space.Key(c));
      }
      for (size_t t = 0; t < 8 * n_random && out.size() < n_random; ++t) {
        size_t i = rng.Index(all->size());
        add((*all)[i], keys[i]);
      }
    }
  } else {
    for (size_t t = 0; t < 20 * n_random && out.size() < n_random; ++t) {
      Config c = space.Canonicalize(space.SampleUniform(rng), &rng);
      if (space.Feasible(c)) add(c, space.Key(c));
    }
  }
  for (const Config& a : around)
    for (const Config& n : space.Neighbors(a)) add(n, space.Key(n));
  for (const Config& e : extra) {
    Config c = space.Canonicalize(e, &rng);
    if (space.Feasible(c)) add(c, space.Key(c));
  }
  return out;
}

void Ranking::Set(std::vector<Config> pool, const std::vector<double>& score, size_t made_for) {
  std::vector<size_t> idx(pool.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return score[a] > score[b]; });
  configs_.clear();
  for (size_t i : idx) configs_.push_back(std::move(pool[i]));
  next_ = 0;
  made_for_ = made_for;
}

std::optional<Config> Ranking::Next(const SearchSpace& space, const History& history, const AbsentValues* absent) {
  while (next_ < configs_.size()) {
    const Config& c = configs_[next_++];
    if ((!absent || !absent->RulesOut(c)) && !history.Seen(space.Key(c))) return c;
  }
  return std::nullopt;
}

}  // namespace cprof::tune
