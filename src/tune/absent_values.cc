// AbsentValues: per parameter value, how many proposals held it and how many of them existed.
#include "tune/absent_values.h"

#include <algorithm>
#include <cmath>

namespace cprof::tune {
namespace {

constexpr double kExpectedIfPresent = 3;  // existences expected before a value is ruled out
constexpr double kRelativeRate = 0.05;    // ... were it this often as the best value of its parameter
constexpr size_t kMinTries = 5;           // proposals of a value before its rate counts as the best
// Parameters with more values are not modelled: ruling a value out takes dozens of proposals of
// that one value, which a wide range (an int 1..1e9: a seed, a byte size) never gathers, and
// counting per value would take memory for every value (16 GB for 1e9).
constexpr size_t kMaxValues = 4096;

// The value index a discrete coordinate holds, or -1 when inactive. Continuous parameters have no
// values to count (cardinality 0), so whatever this returns for them is out of range.
long ValueIndex(double coord) { return std::isfinite(coord) ? std::lround(coord) : -1; }

}  // namespace

AbsentValues::AbsentValues(const SearchSpace& space, const History& history) {
  struct Count {
    size_t tried = 0, existed = 0;
  };
  std::vector<std::vector<Count>> counts(space.size());
  for (size_t q = 0; q < space.size(); ++q)
    if (space.param(q).cardinality() <= kMaxValues) counts[q].resize(space.param(q).cardinality());
  size_t absent = 0;
  for (const Observation& o : history.all()) {
    const bool existed = o.state != TrialState::kInfeasible;
    absent += !existed;
    for (size_t q = 0; q < space.size(); ++q) {
      const long v = ValueIndex(o.config[q]);
      if (v < 0 || static_cast<size_t>(v) >= counts[q].size()) continue;
      counts[q][v].tried++;
      counts[q][v].existed += existed;
    }
  }
  out_.resize(space.size());
  if (absent == 0) return;
  for (size_t q = 0; q < space.size(); ++q) {
    double best_rate = 0;
    for (const Count& c : counts[q])
      if (c.tried >= kMinTries) best_rate = std::max(best_rate, static_cast<double>(c.existed) / c.tried);
    out_[q].resize(counts[q].size());
    for (size_t v = 0; v < counts[q].size(); ++v) {
      const Count& c = counts[q][v];
      out_[q][v] = c.existed == 0 && c.tried * best_rate * kRelativeRate >= kExpectedIfPresent;
      any_ = any_ || out_[q][v];
    }
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
