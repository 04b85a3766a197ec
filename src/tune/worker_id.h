// Who runs a trial: worker ids "host:pid:tag", stored with each running trial, and whether the
// worker a trial names is still alive, so that a trial left running by a dead one is run again.
//
//   std::string me = NewWorkerId(host, 0);            // "node7:4242:0-3fa2c1"
//   if (!WorkerAlive(trial, host, UnixNow(), 300)) store.Claim(trial.id, trial.worker, me);
#pragma once

#include <string>

#include "tune/study_storage.h"

namespace cprof::tune {

// This machine's name ("localhost" when it has none).
std::string HostName();

// A fresh id for worker `index` of this process on `host`.
std::string NewWorkerId(const std::string& host, int index);

// Whether the worker running `t` is alive: on this host, whether its process exists; elsewhere,
// whether it sent a heartbeat within `stale_after` seconds of `now`. A trial without a worker was
// released (a study stopped by a usage error leaves its trial to the next run): anyone may run it.
bool WorkerAlive(const TrialRecord& t, const std::string& host, double now, double stale_after);

}  // namespace cprof::tune
