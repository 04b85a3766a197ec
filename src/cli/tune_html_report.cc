// TuneResult -> TuningReportData: see tune_html_report.h.
#include "cli/tune_html_report.h"

#include <cmath>

#include "tune/parameter_importance.h"

namespace cprof::cli {

TuningReportData TuningReportFrom(const TuneSummaryInput& in, const std::string& command,
                                  const std::string& guided_start) {
  const tune::TuneResult& r = in.r;
  const std::vector<tune::ObjectiveSpec>& objectives = r.objectives;
  const std::string objective = objectives.empty() ? "" : objectives[0].name;
  TuningReportData d;
  d.study = r.study_name;
  d.objective = objective;
  d.maximize = !objectives.empty() && objectives[0].maximize;
  d.command = command;
  d.guided_start = guided_start;
  for (size_t i = 0; i < r.trials.size(); ++i) {
    const tune::TrialSummary& t = r.trials[i];
    if (t.state == tune::TrialState::kInfeasible) continue;  // replay: thousands of free lookups
    TuningReportTrial rt;
    rt.number = t.number;
    rt.state = std::string(tune::TrialStateName(t.state));
    if (t.state == tune::TrialState::kComplete)
      if (auto it = t.metrics.find(objective); it != t.metrics.end()) rt.value = it->second;
    rt.params = t.params;
    rt.sampler = t.sampler;
    rt.reason = t.reason;
    if (r.best && *r.best == i) d.best = d.trials.size();
    if (r.default_trial && *r.default_trial == i) d.default_trial = d.trials.size();
    d.trials.push_back(std::move(rt));
  }
  for (const tune::Remeasured& m : r.remeasured)
    d.remeasured.push_back({m.number, m.params, m.n, m.mean, m.ci_low, m.ci_high});
  for (const tune::Remeasured& m : r.remeasure_candidates)
    d.remeasure_candidates.push_back({m.number, m.params, m.n, m.mean, m.ci_low, m.ci_high, m.raced_away});
  for (size_t i = 0, k = 0; i < r.trials.size(); ++i) {
    if (r.trials[i].state == tune::TrialState::kInfeasible) continue;
    if (const tune::Remeasured* m = tune::RemeasuredOf(r, i)) d.trials[k].remeasured = m - r.remeasured.data();
    d.trials[k].fresh_runs_failed = !tune::FreshRunsFailed(r, i).empty();
    ++k;
  }
  if (!r.pareto.empty() && objectives.size() > 1) {
    for (const tune::ObjectiveSpec& o : objectives)
      d.pareto_objectives.push_back(o.name + (o.maximize ? " (max)" : " (min)"));
    for (size_t i : r.pareto) {
      TuningReportParetoPoint p{r.trials[i].number, {}, r.trials[i].params};
      for (const tune::ObjectiveSpec& o : objectives) {
        auto it = r.trials[i].metrics.find(o.name);
        p.values.push_back(it == r.trials[i].metrics.end() ? std::nan("") : it->second);
      }
      d.pareto.push_back(std::move(p));
    }
  }
  const TuneOutcome outcome = TuneOutcomeOf(in);
  d.best_value = outcome.best_value;
  d.default_value = outcome.default_value;
  if (outcome.improvement) d.improvement_pct = 100 * *outcome.improvement;
  d.notes = TimeLimitNotes(in);
  if (std::string keep = KeepDefaultNote(outcome); !keep.empty()) d.notes.push_back(std::move(keep));
  for (const tune::ParameterImportance& p : tune::ParameterImportances(r.trials, objective))
    d.importances.push_back({p.name, p.share, p.eta_squared, p.levels});
  return d;
}

}  // namespace cprof::cli
