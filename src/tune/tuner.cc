// RunStudy: worker threads around a shared store (study_worker.h), a heartbeat for their running
// trials, then the result as stored and the re-measurement of the best.
#include "tune/tuner.h"

#include <algorithm>
#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tune/remeasure.h"
#include "tune/sampler.h"
#include "tune/study_run.h"
#include "tune/study_summary.h"
#include "tune/study_worker.h"
#include "tune/trial_process.h"
#include "tune/worker_id.h"

namespace cprof::tune {
namespace {

using study_run_internal::Study;
using study_run_internal::WorkerLoop;

// Until st.hb_stop: marks every worker of this process alive in the store (worker_id.h), so that
// no other process takes over their running trials.
void Heartbeats(Study& st, StudyStorage& store) {
  std::unique_lock<std::mutex> lock(st.hb_mu);
  const auto period = std::chrono::duration<double>(std::clamp(st.opt.stale_after_s / 4, 0.5, 10.0));
  while (!st.hb_cv.wait_for(lock, period, [&] { return st.hb_stop; })) {
    for (const std::string& w : st.worker_ids) (void)store.Heartbeat(st.id, w);
  }
}

}  // namespace

StatusOr<TuneResult> RunStudy(const SearchSpace& space, Evaluator& evaluator, StudyStorage& storage,
                              const TuneOptions& options, const ProgressFn& progress) {
  if (options.budget <= 0) return InvalidInput("a study's budget must be positive, not {}", options.budget);
  if (options.workers < 1) return InvalidInput("a study needs at least 1 worker, not {}", options.workers);
  if (options.study_name.empty()) return InvalidInput("a study needs a name");
  Study st(space, evaluator, options, progress);
  st.objectives = options.objectives;
  if (options.time_limit_ns > 0) st.deadline = st.start + std::chrono::nanoseconds(options.time_limit_ns);
  evaluator.SetDeadline(st.deadline);
  st.host = HostName();
  st.default_config = space.DefaultConfig();
  ASSIGN_OR_RETURN(st.sampler, MakeSampler(options.sampler, space, options.budget));
  ASSIGN_OR_RETURN(st.id, storage.OpenStudy(options.study_name,
                                            StudyFingerprint(space, options.objectives, options.fingerprint_extra)));
  ASSIGN_OR_RETURN(std::vector<TrialRecord> before, storage.LoadTrials(st.id));

  std::vector<std::unique_ptr<StudyStorage>> stores;
  for (int w = 0; w < options.workers; ++w) {
    ASSIGN_OR_RETURN(auto s, storage.Clone());
    stores.push_back(std::move(s));
    st.worker_ids.push_back(NewWorkerId(st.host, w));
  }
  ASSIGN_OR_RETURN(auto hb_store, storage.Clone());
  std::thread hb([&] { Heartbeats(st, *hb_store); });
  std::vector<std::thread> workers;
  for (int w = 0; w < options.workers; ++w)
    workers.emplace_back([&, w] { WorkerLoop(st, *stores[w], st.worker_ids[w]); });
  for (auto& t : workers) t.join();
  {
    std::lock_guard<std::mutex> lock(st.hb_mu);
    st.hb_stop = true;
  }
  st.hb_cv.notify_all();
  hb.join();
  if (!st.error.ok()) return st.error;

  ASSIGN_OR_RETURN(TuneResult result, LoadStudy(space, storage, options));
  // Finished evaluations only: one left pending by a killed run is run again here, not resumed,
  // and a configuration found not to exist (free in a replay) is no evaluation.
  result.resumed = std::count_if(before.begin(), before.end(), [](const TrialRecord& t) {
    return t.state != TrialState::kPending && t.state != TrialState::kInfeasible;
  });
  result.run_here = st.run_here;
  result.stopped_at_time_limit = st.stopped_at_time_limit;
  if (result.evaluations < options.budget) result.search_stopped_for_time = st.search_stopped_for_time;
  std::sort(result.stopped_at_time_limit.begin(), result.stopped_at_time_limit.end());

  if (options.remeasure_top > 0 && !st.objectives.empty() && !TrialsInterrupted()) {
    TuneOptions remeasure = options;
    const std::optional<double> pace = st.SecondsPerMeasurement();  // the workers have ended
    if (options.time_limit_ns > 0 && pace) {
      const auto left = st.deadline - std::chrono::steady_clock::now();
      const int64_t complete = std::count_if(result.trials.begin(), result.trials.end(),
                                             [](const TrialSummary& t) { return t.state == TrialState::kComplete; });
      remeasure.remeasure_top = RemeasureTopWithin(options, *pace, complete,
                                                   std::chrono::duration_cast<std::chrono::nanoseconds>(left));
      if (left.count() > 0 && remeasure.remeasure_top < std::min<int64_t>(options.remeasure_top, complete))
        result.remeasure_top_within_time = remeasure.remeasure_top;
    }
    RemeasureBest(remeasure, st.objectives[0], evaluator, progress, &result, st.deadline);
  }
  return result;
}

}  // namespace cprof::tune
