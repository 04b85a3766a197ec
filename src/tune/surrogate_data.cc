// SurrogateData: the transformed targets of complete trials, and the failed ones.
#include "tune/surrogate_data.h"

#include <algorithm>
#include <cmath>

namespace cprof::tune {

SurrogateData CollectSurrogateData(const History& history) {
  SurrogateData d;
  const auto& obs = history.all();
  bool positive = true, negative = true;
  for (size_t i : history.existing())
    if (obs[i].state == TrialState::kComplete && std::isfinite(obs[i].y)) {
      positive = positive && obs[i].y > 0;
      negative = negative && obs[i].y < 0;
    }
  using Scale = SurrogateData::Scale;
  d.scale = positive ? Scale::kLog : negative ? Scale::kNegatedLog : Scale::kLinear;
  for (size_t i : history.existing()) {
    const Observation& o = obs[i];
    if (o.state == TrialState::kComplete && std::isfinite(o.y)) {
      const double t = d.scale == Scale::kLog          ? std::log(o.y)
                       : d.scale == Scale::kNegatedLog ? -std::log(-o.y)
                                                       : o.y;
      d.order.push_back(d.rows.size());
      d.rows.push_back(i);
      d.y.push_back(t);
      d.failed.push_back(false);
      ++d.complete;
    } else if (o.state == TrialState::kFailed || (o.state == TrialState::kComplete && !std::isfinite(o.y))) {
      d.rows.push_back(i);
      d.y.push_back(NAN);
      d.failed.push_back(true);
    }
  }
  std::stable_sort(d.order.begin(), d.order.end(), [&](size_t a, size_t b) { return d.y[a] < d.y[b]; });
  return d;
}

}  // namespace cprof::tune
