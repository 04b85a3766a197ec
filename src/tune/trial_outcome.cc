// Judging finished evaluations: see trial_outcome.h.
#include "tune/trial_outcome.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

namespace cprof::tune {

std::optional<ObjectiveProblem> CheckObjectives(const std::vector<ObjectiveSpec>& objs, const EvalResult& r) {
  std::vector<std::string> names;  // what the command reports, numbers or not
  for (const auto& [k, v] : r.metrics) names.push_back(k);
  for (const auto& [k, v] : r.not_numbers) names.push_back(k);
  std::sort(names.begin(), names.end());
  if (objs.empty())
    return ObjectiveProblem{"no metrics in the output (print a JSON line like {\"latency_ms\": 12.3}, or use --regex)",
                            true};
  // An objective that is absent says more than one printed as NaN: it comes first.
  for (const ObjectiveSpec& o : objs) {
    if (r.metrics.count(o.name) || r.not_numbers.count(o.name)) continue;
    if (names.empty())
      return ObjectiveProblem{
          fmt::format("no objective '{}' in the output (it reports nothing: print a JSON line like "
                      "{{\"{}\": 12.3}}, or use --regex)",
                      o.name, o.name),
          true};
    return ObjectiveProblem{
        fmt::format("no objective '{}' in the output (it reports: {})", o.name, fmt::join(names, ", ")), true};
  }
  for (const ObjectiveSpec& o : objs) {
    if (auto it = r.not_numbers.find(o.name); it != r.not_numbers.end())
      return ObjectiveProblem{fmt::format("objective '{}' {}", o.name, it->second), false};
    if (const double v = r.metrics.at(o.name); !std::isfinite(v))  // an evaluator other than the runner's
      return ObjectiveProblem{fmt::format("objective '{}' is {}", o.name, std::isnan(v) ? "NaN" : "infinite"), false};
  }
  return std::nullopt;
}

std::optional<Status> ObjectiveNeverReported(const std::vector<TrialRecord>& trials, const TrialRecord& trial) {
  for (const TrialRecord& t : trials) {
    if (t.state == TrialState::kComplete) return std::nullopt;
    if (t.measurements.empty()) continue;
    const nlohmann::json m = nlohmann::json::parse(t.measurements, nullptr, false);
    if (m.is_array() && !m.empty()) return std::nullopt;
  }
  return InvalidInput(
      "{}, and no trial of this study has reported it: check the objective's name and what the command prints "
      "(trial {} is left to run again when the study resumes)",
      trial.reason, trial.number);
}

std::optional<Status> SameFailureFromTheStart(const std::vector<TrialRecord>& trials, const std::string& default_key,
                                              const std::string& reason) {
  int seen = 0;
  bool with_default = false;
  for (const TrialRecord& t : trials) {
    if (t.state == TrialState::kComplete) return std::nullopt;
    if (t.state != TrialState::kFailed || seen == 3) continue;
    if (t.reason != reason) return std::nullopt;
    with_default |= t.key == default_key;
    ++seen;
  }
  if (seen < 3 || !with_default) return std::nullopt;
  // The command line or its environment is wrong (argparse's "unrecognized arguments", a missing
  // module), not a configuration: the budget would go the same way.
  return InvalidInput(
      "the first 3 trials, the default configuration among them, failed the same way: {}; fix the command (run it "
      "by hand to see), then rerun",
      reason);
}

}  // namespace cprof::tune
