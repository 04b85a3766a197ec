// One trial's measurement inside a study run: the configuration run `repeats` times (fewer when
// racing shows it clearly worse than the incumbent, or when --time runs out), its record filled
// with the outcome. Internal to src/tune; the worker loop (study_worker.h) calls it with no lock held.
//
//   const Measured seen = Measure(st, job, incumbent, static_cast<uint64_t>(job.number));
//   if (seen.past_deadline) ...;  // job.state, job.reason, job.metrics, job.measurements are set
#pragma once

#include <cstdint>
#include <vector>

#include "tune/study_run.h"
#include "tune/study_storage.h"

namespace cprof::tune {
namespace study_run_internal {

// What Measure saw beyond the record's state and reason.
struct Measured {
  bool objective_absent = false;  // the command ran but did not print an objective (trial_outcome.h)
  bool exit_error = false;  // exited non-zero with a message, crashed, or timed out (EvalResult::exit_error, timed_out)
  bool past_deadline = false;  // --time stopped it before its first measurement: it says nothing
};

// Runs one configuration `repeats` times (fewer when racing shows it is clearly worse than the
// incumbent), and fills the record's outcome.
Measured Measure(Study& st, TrialRecord& t, const std::vector<double>& incumbent, uint64_t stream);

}  // namespace study_run_internal
}  // namespace cprof::tune
