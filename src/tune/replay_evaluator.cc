// ReplayEvaluator: cache records keyed by their parameter values.
#include "tune/replay_evaluator.h"

#include "tune/kernel_tuner_cache.h"

namespace cprof::tune {

StatusOr<std::unique_ptr<ReplayEvaluator>> ReplayEvaluator::Open(const std::string& path, const SearchSpace& space,
                                                                 bool noise) {
  ASSIGN_OR_RETURN(KernelTunerCache cache, ReadKernelTunerCache(path, /*with_records=*/true));
  auto out = std::unique_ptr<ReplayEvaluator>(new ReplayEvaluator());
  out->noise_ = noise;
  for (const auto& [name, values] : cache.tune_params) {
    if (!space.IndexOf(name)) return InvalidInput("{}: the space has no parameter '{}'", path, name);
    out->names_.push_back(name);
  }
  for (const Parameter& p : space.params()) {
    bool found = false;
    for (const std::string& n : out->names_) found = found || n == p.name;
    if (!found) return InvalidInput("{}: the cache has no parameter '{}' of the space", path, p.name);
  }
  for (KernelTunerRecord& r : cache.records) {
    std::string key;
    for (size_t i = 0; i < r.values.size(); ++i) {
      if (i) key += ',';
      key += FormatValue(r.values[i]);
    }
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
  r.metrics[kMetric] = (noise_ && !e.times.empty()) ? e.times[rng.Index(e.times.size())] : e.mean;
  return r;
}

}  // namespace cprof::tune
