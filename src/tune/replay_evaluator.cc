// ReplayEvaluator: cache records keyed by their parameter values.
#include "tune/replay_evaluator.h"

#include <algorithm>

#include "tune/kernel_tuner_cache.h"

namespace cprof::tune {

StatusOr<std::unique_ptr<ReplayEvaluator>> ReplayEvaluator::Open(const std::string& path, const SearchSpace& space,
                                                                 bool noise) {
  ASSIGN_OR_RETURN(KernelTunerCache cache, ReadKernelTunerCache(path, /*with_records=*/true));
  auto out = std::unique_ptr<ReplayEvaluator>(new ReplayEvaluator());
  out->noise_ = noise;
  if (noise && cache.objective != "time")
    return InvalidInput(
        "{}: --replay_noise draws one of a record's `times`, the runs of a time; this cache's objective "
        "is '{}'",
        path, cache.objective);
  out->metric_ = cache.objective;
  out->higher_is_better_ = cache.higher_is_better;
  for (const auto& [name, values] : cache.tune_params) {
    if (!space.IndexOf(name)) return InvalidInput("{}: the space has no parameter '{}'", path, name);
    out->names_.push_back(name);
  }
  for (const Parameter& p : space.params()) {
    bool found = false;
    for (const std::string& n : out->names_) found = found || n == p.name;
    if (!found) return InvalidInput("{}: the cache has no parameter '{}' of the space", path, p.name);
  }
  // A parameter none of whose values the cache holds would make every proposal absent: the study
  // walked past 100,000 of them and stopped with one evaluation and exit 0. Said before it starts.
  for (const auto& [name, values] : cache.tune_params) {
    const Parameter& p = space.param(*space.IndexOf(name));
    std::string listed;
    for (size_t i = 0; i < values.size() && i < 8; ++i) listed += (i ? ", " : "") + FormatValue(values[i]);
    if (values.size() > 8) listed += ", ...";
    if (p.continuous())
      return InvalidInput("{}: parameter '{}' is a continuous range in the space, but the cache measured a list of "
                          "values ({}): give it those values",
                          path, name, listed);
    // Records are found by the text of each value (`tile: "1"` in the space finds the cache's 1).
    const bool any = std::any_of(values.begin(), values.end(), [&](const Value& v) {
      const std::string text = FormatValue(v);
      if (!p.values.empty())
        return std::any_of(p.values.begin(), p.values.end(), [&](const Value& w) { return FormatValue(w) == text; });
      std::optional<double> c = p.CoordOf(v);
      return c && FormatValue(p.ValueAt(*c)) == text;
    });
    if (!any)
      return InvalidInput("{}: none of the cache's values of parameter '{}' ({}) is a value of it in the space", path,
                          name, listed);
  }
  for (KernelTunerRecord& r : cache.records) {
    std::string key;
    for (size_t i = 0; i < r.values.size(); ++i) {
      if (i) key += ',';
      key += FormatValue(r.values[i]);
    }
    // A configuration recorded twice (possible in T4 results) counts once: the first record.
    if (out->entries_.count(key)) continue;
    Entry e;
    if (r.objective) {
      e.mean = *r.objective;
      e.times = std::move(r.times);
      out->valid_.push_back(e.mean);
    } else {
      e.error = r.error.empty() ? "failed" : r.error;
      ++out->failed_;
    }
    out->entries_.emplace(std::move(key), std::move(e));
  }
  return out;
}

EvalResult ReplayEvaluator::Evaluate(const std::map<std::string, std::string>& params, Rng& rng) {
  std::string key;
  for (size_t i = 0; i < names_.size(); ++i) {
    if (i) key += ',';
    auto it = params.find(names_[i]);
    key += it == params.end() ? "-" : it->second;
  }
  EvalResult r;
  auto it = entries_.find(key);
  if (it == entries_.end()) {
    r.state = TrialState::kInfeasible;
    r.reason = "not in the replay cache (hidden constraint)";
    return r;
  }
  const Entry& e = it->second;
  if (!e.error.empty()) {
    r.state = TrialState::kFailed;
    r.reason = e.error;
    return r;
  }
  r.state = TrialState::kComplete;
  r.metrics[metric_] = (noise_ && !e.times.empty()) ? e.times[rng.Index(e.times.size())] : e.mean;
  return r;
}

}  // namespace cprof::tune
