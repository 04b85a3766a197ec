// SurrogateData: transformed targets with failures imputed.
#include "tune/surrogate_data.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cprof::tune {

SurrogateData CollectSurrogateData(const History& history) {
  SurrogateData d;
  const auto& obs = history.all();
  bool positive = true;
  for (size_t i : history.existing())
    if (obs[i].state == TrialState::kComplete && std::isfinite(obs[i].y) && obs[i].y <= 0) positive = false;
  d.log_scale = positive;
  double worst = -INFINITY;
  std::vector<size_t> failed_pos;
  for (size_t i : history.existing()) {
    const Observation& o = obs[i];
    if (o.state == TrialState::kComplete && std::isfinite(o.y)) {
      double t = positive ? std::log(o.y) : o.y;
      d.order.push_back(d.rows.size());
      d.rows.push_back(i);
      d.y.push_back(t);
      d.failed.push_back(false);
      worst = std::max(worst, t);
      ++d.complete;
    } else if (o.state == TrialState::kFailed || (o.state == TrialState::kComplete && !std::isfinite(o.y))) {
      failed_pos.push_back(d.rows.size());
      d.rows.push_back(i);
      d.y.push_back(0);
      d.failed.push_back(true);
    }
  }
  for (size_t p : failed_pos) d.y[p] = std::isfinite(worst) ? worst : 0.0;
  std::stable_sort(d.order.begin(), d.order.end(), [&](size_t a, size_t b) { return d.y[a] < d.y[b]; });
  return d;
}

}  // namespace cprof::tune
