// AbsentValues: per parameter value, how many proposals held it and how many of them existed.
#include "tune/absent_values.h"

#include <algorithm>
#include <cmath>

namespace cprof::tune {
namespace {

constexpr double kExpectedIfPresent = 3;  // existences expected before a value is ruled out
constexpr double kRelativeRate = 0.05;    // ... were it this often as the best value of its parameter
constexpr size_t kMinTries = 5;           // proposals of a value before its rate counts as the best

// The value index a discrete coordinate holds, or -1 when inactive. Continuous parameters have no
// values to count (cardinality 0), so whatever this returns for them is out of range.
long ValueIndex(double coord) { return std::isfinite(coord) ? std::lround(coord) : -1; }

struct Count {
  size_t tried = 0, existed = 0;
};

// Which of `counts` (the values of one parameter, or the value pairs of two) never existed
// although they should have by now, measured against the most often existing of them.
std::vector<bool> NeverExisting(const std::vector<Count>& counts, bool* any) {
  double best_rate = 0;
  for (const Count& c : counts)
    if (c.tried >= kMinTries) best_rate = std::max(best_rate, static_cast<double>(c.existed) / c.tried);
  std::vector<bool> out(counts.size());
  for (size_t v = 0; v < counts.size(); ++v) {
    out[v] = counts[v].existed == 0 && counts[v].tried * best_rate * kRelativeRate >= kExpectedIfPresent;
    *any = *any || out[v];
  }
  return out;
}

}  // namespace

AbsentValues::AbsentValues(const SearchSpace& space, const History& history) {
  std::vector<size_t> card(space.size()), varying;
  for (size_t q = 0; q < space.size(); ++q) {
    card[q] = space.param(q).cardinality();
    if (card[q] > 1) varying.push_back(q);
  }
  std::vector<std::vector<Count>> counts(space.size());
  for (size_t q = 0; q < space.size(); ++q) counts[q].resize(card[q]);
  struct PairCount {
    size_t p, q;
    std::vector<Count> counts;
  };
  std::vector<PairCount> pairs;
  for (size_t i = 0; i < varying.size(); ++i)
    for (size_t j = i + 1; j < varying.size(); ++j)
      pairs.push_back({varying[i], varying[j], std::vector<Count>(card[varying[i]] * card[varying[j]])});
  size_t absent = 0;
  std::vector<long> v(space.size());
  for (const Observation& o : history.all()) {
    const bool existed = o.state != TrialState::kInfeasible;
    absent += !existed;
    for (size_t q = 0; q < space.size(); ++q) {
      v[q] = ValueIndex(o.config[q]);
      if (v[q] >= static_cast<long>(card[q])) v[q] = -1;
      if (v[q] < 0) continue;
      counts[q][v[q]].tried++;
      counts[q][v[q]].existed += existed;
    }
    for (PairCount& pc : pairs) {
      if (v[pc.p] < 0 || v[pc.q] < 0) continue;
      Count& c = pc.counts[v[pc.p] * card[pc.q] + v[pc.q]];
      c.tried++;
      c.existed += existed;
    }
  }
  out_.resize(space.size());
  if (absent == 0) return;
  for (size_t q = 0; q < space.size(); ++q) out_[q] = NeverExisting(counts[q], &any_);
  for (const PairCount& pc : pairs) {
    bool some = false;
    std::vector<bool> out = NeverExisting(pc.counts, &some);
    if (some) pairs_.push_back({pc.p, pc.q, card[pc.q], std::move(out)});
    any_ = any_ || some;
  }
  size_t proposed = 0, existing = 0;
  for (const Observation& o : history.all()) {
    if (any_ && RulesOut(o.config)) continue;
    ++proposed;
    existing += o.state != TrialState::kInfeasible;
  }
  share_ = (existing + 1.0) / (proposed + 1.0);
}

bool AbsentValues::RulesOut(const Config& c) const {
  if (!any_) return false;
  for (size_t q = 0; q < out_.size() && q < c.size(); ++q) {
    const long v = ValueIndex(c[q]);
    if (v >= 0 && static_cast<size_t>(v) < out_[q].size() && out_[q][v]) return true;
  }
  for (const PairOut& po : pairs_) {
    const long a = ValueIndex(c[po.p]), b = ValueIndex(c[po.q]);
    if (a >= 0 && b >= 0 && static_cast<size_t>(b) < po.card_q && static_cast<size_t>(a) * po.card_q < po.out.size() &&
        po.out[a * po.card_q + b])
      return true;
  }
  return false;
}

const AbsentValues& AbsentValuesCache::For(const SearchSpace& space, const History& history) {
  const size_t n = history.size();
  if (!model_ || n < made_for_ || n >= made_for_ + std::max<size_t>(1, made_for_ / 64)) {
    model_.emplace(space, history);
    made_for_ = n;
  }
  return *model_;
}

}  // namespace cprof::tune
