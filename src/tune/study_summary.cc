// A stored study as a TuneResult (LoadStudy) and as a tally for progress lines (Tally), and what
// identifies a study (StudyFingerprint).
#include "tune/study_summary.h"

#include <fmt/format.h>

#include <cmath>

#include "base/hash.h"
#include "tune/objective.h"
#include "tune/rng.h"
#include "tune/trial_record_json.h"
#include "tune/tuner.h"

namespace cprof::tune {

std::string StudyFingerprint(const SearchSpace& space, const std::vector<ObjectiveSpec>& objectives,
                             const std::string& extra) {
  std::string text;
  for (const Parameter& p : space.params()) {
    text += p.name + "|" + ParamTypeName(p.type) + "|" + fmt::format("{}|{}|{}|{}|", p.low, p.high, p.step, p.log);
    for (const Value& v : p.values) text += FormatValue(v) + ",";
    if (p.condition) text += "?" + p.condition->text();
    text += ";";
  }
  for (const Expression& e : space.constraints()) text += "&" + e.text();
  text += "#" + FormatObjectives(objectives) + "#" + extra;
  // FNV-1a from the basis fingerprints were first made with (a digit short of FNV's own), so
  // that study files written before keep resuming; then mixed.
  constexpr uint64_t kFingerprintBasis = 1469598103934665603ULL;
  return fmt::format("{:016x}", Rng::Mix(Fnv1a(text, kFingerprintBasis)));
}

StatusOr<TuneResult> LoadStudy(const SearchSpace& space, StudyStorage& storage, const TuneOptions& options) {
  ASSIGN_OR_RETURN(int64_t id, storage.OpenStudy(options.study_name,
                                                 StudyFingerprint(space, options.objectives, options.fingerprint_extra)));
  ASSIGN_OR_RETURN(std::vector<TrialRecord> trials, storage.LoadTrials(id));
  TuneResult r;
  r.study_name = options.study_name;
  std::vector<ObjectiveSpec> objs = options.objectives;
  const std::optional<std::string> default_key = space.DefaultKey();
  std::vector<std::vector<double>> points;
  std::vector<size_t> point_trial;
  double best_val = INFINITY;
  for (const TrialRecord& t : trials) {
    RETURN_IF_ERROR(CheckStoredTrial(t, space.size()));
    r.trials.push_back(Summarize(t));
    const TrialSummary& s = r.trials.back();
    if (t.state == TrialState::kComplete || t.state == TrialState::kFailed) r.evaluations++;
    if (default_key && t.key == *default_key && t.state != TrialState::kPending) r.default_trial = r.trials.size() - 1;
    if (t.state != TrialState::kComplete) continue;
    if (objs.empty() && s.metrics.size() == 1) objs.push_back({s.metrics.begin()->first, false});
    auto v = Minimized(objs, s.metrics);
    if (!v || v->empty()) continue;
    points.push_back(*v);
    point_trial.push_back(r.trials.size() - 1);
    if ((*v)[0] < best_val) {
      best_val = (*v)[0];
      r.best = r.trials.size() - 1;
    }
  }
  if (objs.size() > 1)
    for (size_t i : ParetoFront(points)) r.pareto.push_back(point_trial[i]);
  r.objectives = std::move(objs);
  return r;
}

StudyTally Tally(const std::vector<TrialRecord>& trials, const std::vector<ObjectiveSpec>& objectives,
                 const std::set<int64_t>& skip) {
  StudyTally tally;
  for (const TrialRecord& t : trials) {
    if (skip.count(t.id)) continue;
    if (t.state == TrialState::kComplete || t.state == TrialState::kFailed) tally.evaluations++;
    if (t.state != TrialState::kComplete || objectives.empty()) continue;
    auto v = Minimized({objectives[0]}, ParseMetricsJson(t.metrics));
    if (v && (!tally.best_value || (*v)[0] < *tally.best_value)) tally.best_value = (*v)[0];
  }
  if (tally.best_value && objectives[0].maximize) tally.best_value = -*tally.best_value;
  return tally;
}

}  // namespace cprof::tune
