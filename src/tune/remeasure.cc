// The re-measurement at the end of a study: each configuration's earlier measurements plus
// remeasure_repeats new ones, and a Student-t interval of their mean (racing.h).
#include "tune/remeasure.h"

#include <algorithm>
#include <cmath>

#include "tune/racing.h"

namespace cprof::tune {

void RemeasureBest(const TuneOptions& options, const ObjectiveSpec& objective, Evaluator& evaluator,
                   const ProgressFn& progress, TuneResult* result) {
  std::vector<size_t> order;
  for (size_t i = 0; i < result->trials.size(); ++i)
    if (result->trials[i].state == TrialState::kComplete && Minimized({objective}, result->trials[i].metrics))
      order.push_back(i);
  auto val = [&](size_t i) { return (*Minimized({objective}, result->trials[i].metrics))[0]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return val(a) < val(b); });
  if (order.size() > static_cast<size_t>(options.remeasure_top)) order.resize(options.remeasure_top);
  // The default configuration too, so that the improvement over it compares two re-measured means.
  if (result->default_trial && std::find(order.begin(), order.end(), *result->default_trial) == order.end() &&
      result->trials[*result->default_trial].state == TrialState::kComplete &&
      Minimized({objective}, result->trials[*result->default_trial].metrics))
    order.push_back(*result->default_trial);
  for (size_t i : order) {
    const TrialSummary& t = result->trials[i];
    std::vector<double> xs;
    for (const auto& m : t.measurements)
      if (auto it = m.find(objective.name); it != m.end()) xs.push_back(it->second);
    Rng rng = Rng::ForTrial(options.seed ^ 0x7e3a, static_cast<uint64_t>(t.number));
    for (int r = 0; r < options.remeasure_repeats; ++r) {
      EvalResult e = evaluator.Evaluate(t.params, rng);
      if (e.state != TrialState::kComplete) continue;
      if (auto it = e.metrics.find(objective.name); it != e.metrics.end()) xs.push_back(it->second);
    }
    MeanInterval ci = MeanConfidenceInterval(xs);
    result->remeasured.push_back({t.number, t.params, objective.name, xs.size(), ci.mean, ci.low, ci.high});
    if (progress) {
      Progress p;
      p.evaluations = static_cast<int64_t>(result->remeasured.size());
      p.budget = static_cast<int64_t>(order.size());
      p.remeasured = &result->remeasured.back();
      progress(p);
    }
  }
  // The recommendation is the best re-measured mean: a lucky first measurement does not win.
  const double sign = objective.maximize ? -1 : 1;
  for (size_t k = 0; k < result->remeasured.size(); ++k) {
    if (!std::isfinite(result->remeasured[k].mean)) continue;
    if (!result->remeasured_best ||
        sign * result->remeasured[k].mean < sign * result->remeasured[*result->remeasured_best].mean)
      result->remeasured_best = k;
  }
  if (result->remeasured_best) result->best = order[*result->remeasured_best];
}

const Remeasured* RemeasuredOf(const TuneResult& r, size_t trial) {
  if (trial >= r.trials.size()) return nullptr;
  for (const Remeasured& m : r.remeasured)
    if (m.number == r.trials[trial].number && m.n > 0) return &m;
  return nullptr;
}

}  // namespace cprof::tune
