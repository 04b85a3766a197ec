// `recommend-runtime`: runtime settings (thread pools, allocator, environment, batch/concurrency
// hints) from what a trace shows and what its diagnosis found, each with the reason.
//
//   RuntimeFacts facts = ReadRuntimeFacts(trace);            // cores, busy threads, env, pools
//   Diagnosis d = Diagnose(trace, DiagnoseOptions{});
//   RuntimeAdjustment a = RecommendRuntime(facts, d);        // runtime_adjustment.h
//
// The rules (each setting's reason cites the fact or the finding, "F2 thread_oversubscription"):
//  - threads.intra_op: the cores left after the threads that are busy outside the pool (observed
//    busy threads minus the pool, e.g. loader workers, Python threads), at least 1; on GPU/NPU
//    traces at most half the cores (the host thread only dispatches; the rest feed the input
//    pipeline). threads.inter_op: 1 (eager PyTorch runs operators one after another).
//    OMP_NUM_THREADS and MKL_NUM_THREADS follow intra_op. Needs the cores (collector metadata
//    `cpu_cores`); without them nothing is said about threads and a note says why.
//  - CPU traces: OMP_PROC_BIND=close, OMP_PLACES=cores; KMP_BLOCKTIME=1 when threads are
//    oversubscribed (idle OpenMP workers spin 200 ms by default and steal the cores).
//  - allocator: on GPU/NPU the device's PYTORCH_*_ALLOC_CONF when a memory_fragmentation,
//    memory_churn or allocator env_config finding exists (expandable_segments:True, plus
//    garbage_collection_threshold:0.8 for fragmentation); on CPU, for memory_churn, glibc's
//    MALLOC_MMAP_THRESHOLD_/MALLOC_TRIM_THRESHOLD_ (keep freed blocks instead of mmap/munmap and
//    zero-filling again), for memory_fragmentation jemalloc through LD_PRELOAD.
//  - NPU: TASK_QUEUE_ENABLE=2 unless already set that way; ACL_OP_COMPILER_CACHE_MODE=enable with a
//    dynamic_shape or env_config finding.
//  - batch: dataloader/host_gap findings -> dataloader_workers (a quarter of the cores, 2..8),
//    pin_memory on GPU/NPU, prefetch_factor 2; launch_overhead or device_idle findings on GPU/NPU
//    -> batch_size_multiplier 2 (the per-step launch cost is fixed, so a larger batch amortizes it).
// Findings below min_confidence (0.3) are not used.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "analysis/diagnose/diagnose.h"
#include "analysis/diagnose/runtime_adjustment.h"
#include "model/trace.h"

namespace cprof {

struct RuntimeFacts {
  DeviceKind device = DeviceKind::kCpu;
  std::optional<int64_t> cores;            // metadata cpu_cores
  std::optional<int64_t> intra_op;         // metadata torch_intra_op_threads
  std::optional<double> busy_threads;      // mean over sampling passes of the process' CPU / 100
  int64_t host_threads = 0;                // threads with traced host work
  std::map<std::string, std::string> env;  // the collector's environment metadata (relevant variables only)
};

// Facts read off the trace; absent ones stay empty.
RuntimeFacts ReadRuntimeFacts(const Trace& trace, DeviceKind device);

RuntimeAdjustment RecommendRuntime(const RuntimeFacts& facts, const Diagnosis& d, double min_confidence = 0.3);

}  // namespace cprof
