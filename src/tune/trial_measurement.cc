// One trial's measurement inside a study run: repeats, racing, --time, the outcome in its record.
#include "tune/trial_measurement.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "tune/racing.h"
#include "tune/rng.h"
#include "tune/trial_outcome.h"
#include "tune/trial_record_json.h"

namespace cprof::tune {
namespace study_run_internal {

using nlohmann::json;

Measured Measure(Study& st, TrialRecord& t, const std::vector<double>& incumbent, uint64_t stream) {
  Measured seen;
  std::map<std::string, std::string> params;
  json p = json::parse(t.params, nullptr, false);
  for (const auto& [k, v] : p.items()) params[k] = v.get<std::string>();
  Rng rng = Rng::ForTrial(st.opt.seed ^ 0xe7a1, stream);
  std::vector<std::map<std::string, double>> ms;
  t.state = TrialState::kComplete;
  t.reason.clear();
  const int repeats = std::max(1, st.opt.repeats);
  for (int r = 0; r < repeats; ++r) {
    EvalResult res = st.evaluator.Evaluate(params, rng);
    if (res.past_deadline) {
      // Not the configuration's fault: with measurements it is complete on those, without it is
      // left to the rerun.
      seen.past_deadline = ms.empty();
      if (!ms.empty()) t.reason = fmt::format("cut short by --time after {} of {} repeats", r, repeats);
      break;
    }
    if (res.state != TrialState::kComplete) {
      t.state = res.state;
      t.reason = res.reason;
      seen.exit_error = res.exit_error || res.timed_out;
      break;
    }
    std::vector<ObjectiveSpec> objs;
    Status resolved;
    {
      std::lock_guard<std::mutex> lock(st.mu);
      resolved = ResolveObjective(st, res.metrics, res.not_numbers);
      if (!resolved.ok()) StopStudy(st, resolved);
      objs = st.objectives;
    }
    if (!resolved.ok()) {  // the study stops with this error; the trial says the same
      t.state = TrialState::kFailed;
      t.reason = resolved.message();
      break;
    }
    if (std::optional<ObjectiveProblem> problem = CheckObjectives(objs, res)) {
      t.state = TrialState::kFailed;
      t.reason = problem->reason;
      // Absent from the first repeat on: maybe from every trial (the worker decides, study_worker.cc).
      seen.objective_absent = problem->absent && ms.empty();
      break;
    }
    ms.push_back(res.metrics);
    if (st.opt.racing && r + 1 < repeats && ClearlyWorse(PrimaryValues(objs, ms), incumbent)) {
      t.reason = fmt::format("raced out after {} of {} repeats", r + 1, repeats);
      break;
    }
  }
  json mj = json::array();
  std::map<std::string, double> mean;
  std::map<std::string, int> count;
  for (const auto& m : ms) {
    mj.push_back(json::parse(MetricsJson(m)));
    // A running mean: three values of 1e308 summed to inf.
    for (const auto& [k, v] : m) mean[k] += (v - mean[k]) / ++count[k];
  }
  t.metrics = t.state == TrialState::kComplete ? MetricsJson(mean) : "";
  t.measurements = mj.dump();
  t.finished_at = UnixNow();
  if (t.state == TrialState::kComplete && !ms.empty()) {
    std::lock_guard<std::mutex> lock(st.mu);
    st.measured_seconds += std::max(0.0, t.finished_at - t.started_at);
    st.measurements += static_cast<int64_t>(ms.size());
  }
  return seen;
}

}  // namespace study_run_internal
}  // namespace cprof::tune
