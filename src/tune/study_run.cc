// The shared state of one RunStudy call and the helpers its workers read it with (study_run.h).
#include "tune/study_run.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <set>

#include "tune/trial_record_json.h"

namespace cprof::tune {
namespace study_run_internal {

void StopStudy(Study& st, const Status& error) {
  if (st.error.ok()) st.error = error;
  st.stop = true;
}

const Config* NextStartConfig(const Study& st, const std::vector<TrialRecord>& trials) {
  for (const Config& c : st.opt.start_configs) {
    if (!st.space.Feasible(c)) continue;
    const std::string key = st.space.Key(c);
    if (std::none_of(trials.begin(), trials.end(), [&](const TrialRecord& t) { return t.key == key; })) return &c;
  }
  return nullptr;
}

Status ResolveObjective(Study& st, const std::map<std::string, double>& metrics,
                        const std::map<std::string, std::string>& not_numbers) {
  // Numbers only, finite or not (a NaN objective then fails its trial saying so): a run name or a
  // nested object beside the one time ({"t": 2, "name": "run1"}) made "several metrics".
  std::set<std::string> names;
  for (const auto& [k, v] : metrics) names.insert(k);
  for (const auto& [k, why] : not_numbers)
    if (why == "is NaN" || why == "is infinite") names.insert(k);
  if (!st.objectives.empty() || names.empty()) return Status::Ok();
  if (names.size() == 1) {
    st.objectives.push_back({*names.begin(), false});
    return Status::Ok();
  }
  return InvalidInput("the command reports several metrics ({}): choose one with --objective NAME:min|max",
                      fmt::join(names, ", "));
}

History& Snapshot(Study& st, const std::vector<TrialRecord>& trials, Rng& rng) {
  const size_t k = st.objectives.size();
  size_t from = 0;
  if (k <= 1 && st.history_k == k && st.history_ids.size() <= trials.size()) {
    from = st.history_ids.size();
    // A replay can hold 100,000 records: those finished at the last snapshot are not compared.
    for (size_t i = std::min(st.snapshot_finished, from); i < from; ++i) {
      if (trials[i].id != st.history_ids[i].first || trials[i].state != st.history_ids[i].second) {
        from = 0;
        break;
      }
    }
  }
  if (from == 0) {
    st.history = History();
    st.history_ids.clear();
    st.history_rows.clear();
  }
  st.history_k = k;
  std::vector<std::optional<std::vector<double>>> vals(trials.size());
  std::vector<double> lo(k, INFINITY), hi(k, -INFINITY);
  for (size_t i = from; i < trials.size(); ++i) {
    if (trials[i].state != TrialState::kComplete || k == 0) continue;
    auto m = st.metrics_cache.find(trials[i].id);
    if (m == st.metrics_cache.end() || m->second.first != trials[i].metrics) {
      m = st.metrics_cache
              .insert_or_assign(trials[i].id, std::pair{trials[i].metrics, ParseMetricsJson(trials[i].metrics)})
              .first;
    }
    vals[i] = Minimized(st.objectives, m->second.second);
    if (vals[i])
      for (size_t o = 0; o < k; ++o) lo[o] = std::min(lo[o], (*vals[i])[o]), hi[o] = std::max(hi[o], (*vals[i])[o]);
  }
  std::vector<double> w(k, 1.0);
  if (k > 1) {
    double sum = 0;
    for (double& x : w) sum += x = -std::log(std::max(1e-12, rng.Uniform()));
    for (double& x : w) x /= sum;
  }
  for (size_t i = from; i < trials.size(); ++i) {
    const TrialRecord& t = trials[i];
    st.history_ids.emplace_back(t.id, t.state);
    Observation o;
    auto c = st.coords_cache.find(t.id);
    if (c == st.coords_cache.end()) c = st.coords_cache.emplace(t.id, ParseCoords(t.coords, st.space.size())).first;
    if (!c->second) continue;  // written by another version of the space: the fingerprint prevents this
    o.config = *c->second;
    o.key = t.key;
    o.state = t.state;
    o.sampler = t.sampler;
    st.history_rows.push_back(i);
    if (t.state == TrialState::kComplete) {
      if (!vals[i]) {
        o.state = TrialState::kFailed;
      } else if (k == 1) {
        o.y = (*vals[i])[0];
      } else {
        double mx = -INFINITY, sum = 0;
        for (size_t j = 0; j < k; ++j) {
          double n = hi[j] > lo[j] ? ((*vals[i])[j] - lo[j]) / (hi[j] - lo[j]) : 0.0;
          mx = std::max(mx, w[j] * n);
          sum += w[j] * n;
        }
        o.y = mx + 0.05 * sum;
      }
    }
    st.history.Add(std::move(o));
  }
  st.snapshot_finished = st.final_prefix;
  return st.history;
}

std::vector<double> PrimaryValues(const std::vector<ObjectiveSpec>& objs,
                                  const std::vector<std::map<std::string, double>>& ms) {
  std::vector<double> out;
  if (objs.empty()) return out;
  for (const auto& m : ms) {
    auto v = Minimized({objs[0]}, m);
    if (v) out.push_back((*v)[0]);
  }
  return out;
}

Status RefreshTrials(Study& st, StudyStorage& store) {
  ASSIGN_OR_RETURN(std::vector<TrialRecord> fresh, store.LoadTrialsFrom(st.id, static_cast<int64_t>(st.final_prefix)));
  if (!fresh.empty() && fresh.front().number != static_cast<int64_t>(st.final_prefix)) {
    // Numbers are gapless by contract; if a store broke it, read everything again.
    st.final_prefix = 0;
    ASSIGN_OR_RETURN(fresh, store.LoadTrials(st.id));
  }
  for (const TrialRecord& t : fresh) RETURN_IF_ERROR(CheckStoredTrial(t, st.space.size()));
  st.trials.resize(st.final_prefix);
  for (TrialRecord& t : fresh) st.trials.push_back(std::move(t));
  while (st.final_prefix < st.trials.size() && st.trials[st.final_prefix].state != TrialState::kPending)
    ++st.final_prefix;
  return Status::Ok();
}

}  // namespace study_run_internal
}  // namespace cprof::tune
