// The intra-op thread pool that fits the cores: one rule for `diagnose`'s thread-oversubscription
// suggestion, `recommend-runtime` and `tune --from_diagnosis`, so the three name the same number.
//
//   int64_t n = IntraOpThreadsFor(/*cores=*/8, /*busy_threads=*/12.0, /*pool=*/2, /*on_device=*/false);  // 1
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>

namespace cprof {

// The cores left once the busy threads outside the pool (busy - pool, rounded) keep theirs, at
// least 1; on a device trace at most half the cores (the host only dispatches, and the input
// pipeline needs the rest). `pool`: the intra-op pool the run used (the cores when unknown).
inline int64_t IntraOpThreadsFor(int64_t cores, std::optional<double> busy_threads, int64_t pool, bool on_device) {
  cores = std::max<int64_t>(1, cores);
  const int64_t outside = busy_threads ? std::max<int64_t>(0, std::llround(*busy_threads) - pool) : 0;
  int64_t intra = std::max<int64_t>(1, cores - outside);
  if (on_device) intra = std::min(intra, std::max<int64_t>(1, cores / 2));
  return intra;
}

}  // namespace cprof
