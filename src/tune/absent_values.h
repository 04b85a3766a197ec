// AbsentValues: parameter values that a study has found never to exist — hidden constraints learnt
// from the configurations found absent (replay: not in the cache; free), so that samplers stop
// proposing them.
//
//   AbsentValues absent(space, history);
//   if (absent.RulesOut(c)) continue;     // c holds a value that never existed
//   double share = absent.ExistingShare();  // of the proposals it does not rule out, existed
//
// A value is ruled out when none of its proposals existed although, had it existed even 1/20 as
// often as the parameter's most often existing value, about 3 of them would have (a false
// exclusion at that rate happens with probability e^-3). On the Kernel Tuner spaces the rarest
// value that exists at all exists 0.11 times as often as the space's average (smalltile's VWM 8),
// while convolution's block_size_x 1 never does. Only discrete parameters of at most 4,096 values
// are modelled.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "tune/history.h"
#include "tune/search_space.h"

namespace cprof::tune {

class AbsentValues {
 public:
  AbsentValues(const SearchSpace& space, const History& history);
  bool RulesOut(const Config& c) const;
  bool any() const { return any_; }
  // (existing + 1) / (proposed + 1) over the proposals (measured, running or absent) that the
  // model does not rule out: how many candidates hold one configuration that exists.
  double ExistingShare() const { return share_; }

 private:
  std::vector<std::vector<bool>> out_;  // per parameter, per value index: ruled out
  bool any_ = false;
  double share_ = 1;
};

// AbsentValues for a growing history, rebuilt when the history has grown by 1/64 (at least one
// proposal) or shrunk: a study that walks past tens of thousands of absent configurations would
// otherwise count the whole history again at every proposal. Rebuilding only every 64 proposals
// left the first pools sized for a share of 1 (auto at B=25: gemm 0.57 -> 0.45, 200 seeds).
class AbsentValuesCache {
 public:
  const AbsentValues& For(const SearchSpace& space, const History& history);

 private:
  std::optional<AbsentValues> model_;
  size_t made_for_ = 0;
};

}  // namespace cprof::tune
