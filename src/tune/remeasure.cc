// The re-measurement at the end of a study: fresh measurements to choose, fresh ones again to
// report, and a Student-t interval of each mean (racing.h).
#include "tune/remeasure.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <numeric>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "tune/racing.h"
#include "tune/trial_process.h"

namespace cprof::tune {
namespace {

// Why a stage stopped before its planned measurements.
enum class Stop { kNo, kTime, kSignal };

// `n` fresh measurements of each configuration in `trials` (indices into result.trials), appended
// to `out` with its role, each reported to `done` as it is finished. One measurement of each in
// turn (a, b, a, b, ...), so that a drift of the machine falls on each alike. `race`: after each
// turn from the second on, a configuration whose values are clearly worse than those of the best
// mean still running (racing.h, one-sided Welch t-test at 5%) is measured no more: it is finished
// then, `raced_away`. `stream` keeps the stages' random draws apart (a replay with noise,
// test evaluators). At `deadline`, or on a signal (InterruptTrials), it stops: the configurations
// keep the measurements they have (none are reported to `done` after a signal: the run is over).
Stop MeasureAnew(const std::vector<size_t>& trials, const std::vector<std::string>& roles, bool race, int n,
                 uint64_t stream, const ObjectiveSpec& objective, Evaluator& evaluator, const TuneResult& result,
                 std::chrono::steady_clock::time_point deadline, const std::function<void(const Remeasured&)>& done,
                 std::vector<Remeasured>* out) {
  std::vector<std::vector<double>> xs(trials.size());  // minimized: negated when maximizing
  std::vector<int> failed(trials.size(), 0);
  // Each configuration's failures by reason, in the order first seen: one reason given for all
  // (the last) said "2 runs failed: killed by signal 11" of a timeout and a crash.
  std::vector<std::vector<std::pair<std::string, int>>> failures(trials.size());
  std::vector<Rng> rngs;
  for (size_t i : trials) rngs.push_back(Rng::ForTrial(stream, static_cast<uint64_t>(result.trials[i].number)));
  const double sign = objective.maximize ? -1 : 1;
  Stop stop = Stop::kNo;
  auto measure = [&](size_t k) {
    if (TrialsInterrupted()) stop = Stop::kSignal;
    else if (std::chrono::steady_clock::now() >= deadline) stop = Stop::kTime;
    if (stop != Stop::kNo) return;
    EvalResult e = evaluator.Evaluate(result.trials[trials[k]].params, rngs[k]);
    if (TrialsInterrupted()) stop = Stop::kSignal;
    else if (e.past_deadline) stop = Stop::kTime;
    if (stop != Stop::kNo) return;
    auto it = e.metrics.find(objective.name);
    if (e.state == TrialState::kComplete && it != e.metrics.end() && std::isfinite(it->second)) {
      xs[k].push_back(sign * it->second);
      return;
    }
    ++failed[k];
    const std::string why =
        e.state == TrialState::kComplete ? "no finite '" + objective.name + "' in its output" : e.reason;
    auto same = std::find_if(failures[k].begin(), failures[k].end(), [&](const auto& f) { return f.first == why; });
    if (same == failures[k].end()) failures[k].emplace_back(why, 1);
    else ++same->second;
  };
  std::vector<std::optional<Remeasured>> finished(trials.size());
  auto finish = [&](size_t k, bool raced_away) {
    const TrialSummary& t = result.trials[trials[k]];
    std::vector<double> values = xs[k];
    for (double& v : values) v *= sign;
    MeanInterval ci = values.empty() ? MeanInterval{} : MeanConfidenceInterval(values);
    finished[k] =
        Remeasured{t.number, t.params, objective.name, values.size(), ci.mean, ci.low, ci.high, roles[k], raced_away, {}};
    finished[k]->failed_runs = static_cast<size_t>(failed[k]);
    finished[k]->values = std::move(values);
    std::string& why = finished[k]->shortfall;
    if (stop == Stop::kTime) why = "--time ran out";
    if (stop == Stop::kSignal) why = "interrupted";
    if (failed[k] > 0) {
      std::string reasons;
      for (const auto& [reason, count] : failures[k])
        reasons += (reasons.empty() ? "" : "; ") +
                   (failures[k].size() == 1 ? reason : fmt::format("{} ({})", reason, count));
      why += fmt::format("{}{} run{} failed: {}", why.empty() ? "" : "; ", failed[k], failed[k] == 1 ? "" : "s",
                         reasons);
    }
    if (done && stop != Stop::kSignal) done(*finished[k]);
  };
  auto mean = [&](size_t k) { return std::accumulate(xs[k].begin(), xs[k].end(), 0.0) / xs[k].size(); };
  for (int r = 0; r < n && stop == Stop::kNo; ++r) {
    for (size_t k = 0; k < trials.size(); ++k)
      if (!finished[k]) measure(k);
    if (!race || r + 1 == n || stop != Stop::kNo) continue;
    std::optional<size_t> lead;
    for (size_t k = 0; k < trials.size(); ++k)
      if (!finished[k] && !xs[k].empty() && (!lead || mean(k) < mean(*lead))) lead = k;
    for (size_t k = 0; lead && k < trials.size(); ++k) {
      if (finished[k] || k == *lead || !ClearlyWorse(xs[k], xs[*lead])) continue;
      finish(k, true);
    }
  }
  for (size_t k = 0; k < trials.size(); ++k)
    if (!finished[k]) finish(k, false);
  for (std::optional<Remeasured>& m : finished) out->push_back(std::move(*m));
  return stop;
}

}  // namespace

int RemeasureRepeats(const TuneOptions& options) { return std::max(3, options.remeasure_repeats); }

std::chrono::nanoseconds RemeasureReserve(const TuneOptions& options, double seconds_per_measurement,
                                          int64_t complete_trials) {
  if (options.remeasure_top <= 0 || complete_trials <= 0) return std::chrono::nanoseconds(0);
  // With no more complete trials than the top, the default (when there is one) is among them.
  const int64_t top = std::min<int64_t>(options.remeasure_top, complete_trials);
  const int64_t candidates = top + (complete_trials > top ? 1 : 0);
  const double runs = static_cast<double>(candidates + (candidates > 1 ? 2 : 1)) * RemeasureRepeats(options);
  return std::chrono::nanoseconds(static_cast<int64_t>(seconds_per_measurement * runs * 1e9));
}

int RemeasureTopWithin(const TuneOptions& options, double seconds_per_measurement, int64_t complete_trials,
                       std::chrono::nanoseconds time) {
  if (options.remeasure_top <= 0) return 0;
  TuneOptions fewer = options;
  for (fewer.remeasure_top = options.remeasure_top; fewer.remeasure_top > 1; --fewer.remeasure_top)
    if (RemeasureReserve(fewer, seconds_per_measurement, complete_trials) <= time) break;
  return fewer.remeasure_top;
}

void RemeasureBest(const TuneOptions& options, const ObjectiveSpec& objective, Evaluator& evaluator,
                   const ProgressFn& progress, TuneResult* result, std::chrono::steady_clock::time_point deadline) {
  std::vector<size_t> order;
  for (size_t i = 0; i < result->trials.size(); ++i)
    if (result->trials[i].state == TrialState::kComplete && Minimized({objective}, result->trials[i].metrics))
      order.push_back(i);
  auto val = [&](size_t i) { return (*Minimized({objective}, result->trials[i].metrics))[0]; };
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return val(a) < val(b); });
  if (order.size() > static_cast<size_t>(options.remeasure_top)) order.resize(options.remeasure_top);
  // The default configuration too: it may be the best, and the improvement is measured against it.
  const std::optional<size_t> def = result->default_trial;
  if (def && std::find(order.begin(), order.end(), *def) == order.end() &&
      result->trials[*def].state == TrialState::kComplete && Minimized({objective}, result->trials[*def].metrics))
    order.push_back(*def);
  if (order.empty() || TrialsInterrupted()) return;
  if (std::chrono::steady_clock::now() >= deadline) {
    result->remeasure_end = RemeasureEnd::kSkipped;
    return;
  }
  const int n = RemeasureRepeats(options);
  // Each stage counts its own configurations: how many the second measures is known only once
  // the first has chosen (1 when it chose the default), and a total across both went 1/3, 2/2.
  int64_t finished = 0, stage_size = static_cast<int64_t>(order.size());
  auto done = [&](const Remeasured& m) {
    if (!progress) return;
    Progress p;
    p.evaluations = ++finished;
    p.budget = stage_size;
    p.remeasured = &m;
    progress(p);
  };

  // Stage 1: choose by fresh means, racing away the clearly worse.
  Stop stop = MeasureAnew(order, std::vector<std::string>(order.size(), "candidate"), true, n,
                          options.seed ^ 0x7e3a, objective, evaluator, *result, deadline, done,
                          &result->remeasure_candidates);
  result->remeasure_end = stop == Stop::kTime ? RemeasureEnd::kCutShort : RemeasureEnd::kWhole;
  if (stop == Stop::kSignal) return;
  const double sign = objective.maximize ? -1 : 1;
  // One whose fresh runs all succeeded goes before one where some failed, whatever their means:
  // a setting that sometimes crashes is not one to recommend (as a failed repeat fails a trial).
  // It chose a configuration that had just crashed a run, on the runs that did not.
  auto before = [&](const Remeasured& a, const Remeasured& b) {
    if ((a.failed_runs == 0) != (b.failed_runs == 0)) return a.failed_runs == 0;
    return sign * a.mean < sign * b.mean;
  };
  std::optional<size_t> chosen;  // index into order
  for (size_t k = 0; k < order.size(); ++k) {
    const Remeasured& m = result->remeasure_candidates[k];
    if (m.n == 0 || m.raced_away) continue;
    if (!chosen || before(m, result->remeasure_candidates[*chosen])) chosen = k;
  }
  if (!chosen) return;  // every fresh measurement failed or was cut: the search's best stands
  result->best = order[*chosen];
  if (stop == Stop::kTime) return;  // no time to measure the report's values: the search's stand

  // Stage 2: what is reported, measured after the choice and so independent of it.
  std::vector<size_t> report = {order[*chosen]};
  if (def && *def != order[*chosen] && std::find(order.begin(), order.end(), *def) != order.end())
    report.push_back(*def);
  finished = 0;
  stage_size = static_cast<int64_t>(report.size());
  stop = MeasureAnew(report, {"best", "default"}, false, n, options.seed ^ 0x5e1ec7, objective, evaluator, *result,
                     deadline, done, &result->remeasured);
  if (stop == Stop::kTime) result->remeasure_end = RemeasureEnd::kCutShort;
  if (result->remeasured.front().n > 0) result->remeasured_best = 0;
}

const Remeasured* RemeasuredOf(const TuneResult& r, size_t trial) {
  if (trial >= r.trials.size()) return nullptr;
  for (const Remeasured& m : r.remeasured)
    if (m.number == r.trials[trial].number && m.n > 0) return &m;
  return nullptr;
}

std::string FreshRunsFailed(const TuneResult& r, size_t trial) {
  if (trial >= r.trials.size()) return "";
  for (const Remeasured& m : r.remeasured)
    if (m.number == r.trials[trial].number && m.n == 0 && m.failed_runs > 0) return m.shortfall;
  return "";
}

}  // namespace cprof::tune
