// One worker thread of a study run: takes the next trial (a dead worker's, or a new proposal
// reserved in the store), measures it, stores it and reports progress, until the budget is spent,
// --time is up, the space is exhausted or the study stops. Internal to src/tune; use tuner.h.
//
//   std::thread t([&] { WorkerLoop(st, *store, st.worker_ids[0]); });  // one store clone each
#pragma once

#include <string>

#include "tune/study_run.h"
#include "tune/study_storage.h"

namespace cprof::tune {
namespace study_run_internal {

// Runs until the study stops (st.stop), the process is interrupted, or nothing is left for this
// worker; the first fatal error goes to st.error. `store` is this worker's own clone; `me` is its
// worker id (worker_id.h).
void WorkerLoop(Study& st, StudyStorage& store, const std::string& me);

}  // namespace study_run_internal
}  // namespace cprof::tune
