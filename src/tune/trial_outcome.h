// What a finished evaluation means for a study: whether it gives the objectives (and if not, the
// reason its trial fails with), and the two outcomes that show the study itself is set up wrong
// rather than a configuration bad, so that it stops with a usage error instead of spending its
// budget on failures:
//   - the objective is absent from the output and no trial of the study has ever reported it
//     (a misspelt --objective, a command that prints no JSON line);
//   - the study's first 3 evaluated trials, the default configuration among them, failed with
//     the same non-zero exit and the same stderr message, or none (argparse's "unrecognized
//     arguments"),
//     or all timed out (a command that waits for input, a --timeout far too short); the first 5
//     when the space has no default.
// Either way the trials that showed it are left to run again when the study resumes.
//
//   if (auto p = CheckObjectives(objs, eval_result)) fail_with(p->reason);
//   if (p->absent) if (auto usage = ObjectiveNeverReported(store_records, trial)) return *usage;
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "tune/evaluator.h"
#include "tune/objective.h"
#include "tune/study_storage.h"

namespace cprof::tune {

struct ObjectiveProblem {
  std::string reason;   // "no objective 'tt' in the output (it reports: mem, t)", "objective 't' is NaN"
  bool absent = false;  // an objective is not in the output at all (rather than printed as NaN, ...)
};

// Why the complete evaluation `r` does not give every objective as a finite number; nullopt when
// it does. `objs` empty: no objective is resolved, which happens only when nothing was reported.
std::optional<ObjectiveProblem> CheckObjectives(const std::vector<ObjectiveSpec>& objs, const EvalResult& r);

// The usage error an absent objective shows when no trial in `trials` has ever reported the
// objectives (none is complete, none holds a measurement: a trial that failed on a later repeat
// keeps the earlier ones): it names `trial`'s reason and says the trial is left to the rerun.
// nullopt when some trial has: then `trial` fails with its reason.
std::optional<Status> ObjectiveNeverReported(const std::vector<TrialRecord>& trials, const TrialRecord& trial);

struct StartFailure {
  Status usage;                 // quotes the default's reason (the first trial's without a default)
  std::vector<int64_t> trials;  // the record ids of the trials that failed alike: to run again
};

// The usage error shown when the study's first 3 evaluated trials (complete or failed, by number)
// all failed with the same reason once each one's parameter values are taken out of it ("--thread
// 4" and "--thread 8" read alike), one of them is the default configuration (`default_key`), and
// no trial is complete; else nullopt. A space without a default needs the first 5 trials to fail
// alike. Those trials say nothing about their configurations: the study reopens them
// (study_worker.cc, StopIfTheSetupIsWrong), so that the rerun after the fix measures them, the default first.
std::optional<StartFailure> SameFailureFromTheStart(const std::vector<TrialRecord>& trials,
                                                   const std::optional<std::string>& default_key);

}  // namespace cprof::tune
