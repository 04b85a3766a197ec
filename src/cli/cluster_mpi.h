// `cluster --mpi`: the ranks of a cluster are loaded by the processes of an MPI job, for
// clusters whose traces are too many or too large for one machine (DESIGN.md, "Scale"):
//
//   mpirun -n 16 --hostfile hosts cann-profiler cluster --mpi --full_trace /shared/job42 -o c.json
//
// Process p of P loads every P-th input (p, p + P, ...) with its own threads (--jobs), keeps
// only the rank summaries (a few KB each) and sends them to process 0, which runs the analysis
// and writes the report; the other processes write nothing. Every process must see the inputs at
// the same paths (a shared file system, or one host).
//
//   StatusOr<MpiLoad> r = LoadRankSummariesOverMpi(paths, load, /*prefer_trace_steps=*/true, 0);
//   if (r->process == 0) Analyze(*r->all);
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/cluster/rank_loader.h"
#include "base/status.h"

namespace cprof::cli {

struct MpiLoad {
  int process = 0;                 // this process's rank in MPI_COMM_WORLD
  int processes = 1;               // the job's size
  std::optional<LoadedRanks> all;  // on process 0: every input's summary, in the order of `paths`
};

// Joins the MPI job (MPI_Init_thread), loads this process's share, gathers on process 0 and leaves the
// job (MPI_Finalize). Once per program: MPI cannot be initialized again after it finalized.
// Process 0's `paths` are the job's inputs; the other processes' are replaced by them.
StatusOr<MpiLoad> LoadRankSummariesOverMpi(const std::vector<std::string>& paths, const RankTraceLoader& load,
                                           bool prefer_trace_steps, int threads);

}  // namespace cprof::cli
