// What a study's stored trials add up to, for progress lines (the whole result: LoadStudy, tuner.h).
//
//   StudyTally t = Tally(trials, objectives, /*skip=*/{});
//   t.evaluations;  // complete or failed trials
//   t.best_value;   // the first objective's best, in its own direction; nullopt before one
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "tune/objective.h"
#include "tune/study_storage.h"

namespace cprof::tune {

struct StudyTally {
  int64_t evaluations = 0;
  std::optional<double> best_value;
};

// Over `trials`, leaving out the ids in `skip`.
StudyTally Tally(const std::vector<TrialRecord>& trials, const std::vector<ObjectiveSpec>& objectives,
                 const std::set<int64_t>& skip);

}  // namespace cprof::tune
