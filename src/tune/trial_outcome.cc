// Judging finished evaluations: see trial_outcome.h.
#include "tune/trial_outcome.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <nlohmann/json.hpp>

namespace cprof::tune {

std::optional<ObjectiveProblem> CheckObjectives(const std::vector<ObjectiveSpec>& objs, const EvalResult& r) {
  std::vector<std::string> names;  // what the command reports, numbers or not
  for (const auto& [k, v] : r.metrics) names.push_back(k);
  for (const auto& [k, v] : r.not_numbers) names.push_back(k);
  std::sort(names.begin(), names.end());
  if (objs.empty() && !r.output_problem.empty())
    return ObjectiveProblem{"no metrics in the output: " + r.output_problem, true};
  if (objs.empty() && !r.not_numbers.empty()) {  // {"t": true}, --regex 't=(\w+)' on "t=iter"
    std::vector<std::string> what;
    for (const auto& [k, why] : r.not_numbers) what.push_back(fmt::format("'{}' {}", k, why));
    return ObjectiveProblem{fmt::format("no metrics in the output: {}", fmt::join(what, "; ")), true};
  }
  if (objs.empty())
    return ObjectiveProblem{"no metrics in the output (print a JSON line like {\"latency_ms\": 12.3}, or use --regex)",
                            true};
  // An objective that is absent says more than one printed as NaN: it comes first.
  for (const ObjectiveSpec& o : objs) {
    if (r.metrics.count(o.name) || r.not_numbers.count(o.name)) continue;
    if (auto why = r.absent.find(o.name); why != r.absent.end()) return ObjectiveProblem{why->second, true};
    if (names.empty() && !r.output_problem.empty())
      return ObjectiveProblem{fmt::format("no objective '{}' in the output: {}", o.name, r.output_problem), true};
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

namespace {

bool WordChar(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

// `reason` with each whole-word occurrence of the trial's parameter values replaced by "{name}":
// argparse's "invalid choice: 'x8'" or "unrecognized arguments: --thread 4" then reads the same
// on every trial. Longer values first, so that "16" is not cut into "1" + "6". The exit code in
// front ("exit code 2: ") is the command's, not a value; so are a signal ("killed by signal 11
// (Segmentation fault)" with x = 11 read "signal {x}") and a timeout, which quote no output.
std::string WithoutParameterValues(std::string reason, const std::string& params_json) {
  if (reason.rfind("killed by ", 0) == 0 || reason.rfind("timed out", 0) == 0) return reason;
  const nlohmann::json p = nlohmann::json::parse(params_json, nullptr, false);
  if (!p.is_object()) return reason;
  std::vector<std::pair<std::string, std::string>> values;
  for (const auto& [k, v] : p.items())
    if (v.is_string() && !v.get<std::string>().empty()) values.emplace_back(v.get<std::string>(), k);
  std::sort(values.begin(), values.end(), [](const auto& a, const auto& b) { return a.first.size() > b.first.size(); });
  for (const auto& [value, name] : values) {
    const std::string mark = "{" + name + "}";
    size_t from = 0;
    if (reason.rfind("exit code ", 0) == 0)
      if (size_t colon = reason.find(": "); colon != std::string::npos) from = colon + 2;
    for (size_t at = reason.find(value, from); at != std::string::npos; at = reason.find(value, at)) {
      const size_t end = at + value.size();
      if ((at > 0 && WordChar(reason[at - 1])) || (end < reason.size() && WordChar(reason[end]))) {
        at = end;
        continue;
      }
      reason.replace(at, value.size(), mark);
      at += mark.size();
    }
  }
  return reason;
}

}  // namespace

std::optional<StartFailure> SameFailureFromTheStart(const std::vector<TrialRecord>& trials,
                                                   const std::optional<std::string>& default_key) {
  // Without a default that is known to work, 3 configurations failing alike may be a bad region.
  const size_t needed = default_key ? 3 : 5;
  std::vector<const TrialRecord*> first;
  for (const TrialRecord& t : trials) {
    if (t.state == TrialState::kComplete) return std::nullopt;
    if (t.state == TrialState::kFailed && first.size() < needed) first.push_back(&t);
  }
  if (first.size() < needed) return std::nullopt;
  const TrialRecord* quoted = default_key ? nullptr : first[0];
  const std::string common = WithoutParameterValues(first[0]->reason, first[0]->params);
  for (const TrialRecord* t : first) {
    if (WithoutParameterValues(t->reason, t->params) != common) return std::nullopt;
    if (default_key && t->key == *default_key) quoted = t;
  }
  if (!quoted) return std::nullopt;
  const std::string which = default_key ? "the first 3 trials, the default configuration among them,"
                                        : fmt::format("the first {} trials", needed);
  StartFailure stop;
  for (const TrialRecord* t : first) stop.trials.push_back(t->id);
  // They say nothing about their configurations: the rerun runs them again (the default among
  // them is the baseline), and they cost no budget.
  const std::string rerun = fmt::format(" (the rerun that resumes the study runs these {} trials again)", needed);
  // The command line or its environment is wrong (argparse's "unrecognized arguments", a missing
  // module, a command that waits for input), not a configuration: the budget would go the same way.
  if (quoted->reason.rfind("timed out", 0) == 0)
    stop.usage = InvalidInput(
        "{} {}; run the command by hand to see whether it finishes (it may be waiting for input), or give a "
        "longer --timeout, then rerun{}",
        which, quoted->reason, rerun);
  else
    stop.usage = InvalidInput("{} failed the same way: {}; fix the command (run it by hand to see), then rerun{}",
                              which, quoted->reason, rerun);
  return stop;
}

}  // namespace cprof::tune
