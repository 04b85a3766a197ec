// Loads the ranks of a cluster in parallel and keeps only their summaries: each worker imports
// one rank, summarizes it and frees the trace before taking the next, so peak memory is about
// `threads` times the largest rank, not the sum. A rank that fails to load is reported as
// unreadable with its reason; it never stops the others.
//
//   LoadedRanks r = LoadRankSummaries(paths, [](const std::string& p) { return ImportTrace(p); },
//                                     /*prefer_trace_steps=*/false, /*threads=*/0);
//
// The loader is injected so this module does not depend on the importers.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "analysis/cluster/cluster_analysis.h"
#include "analysis/cluster/rank_summary.h"
#include "base/status.h"

namespace cprof {

using RankTraceLoader = std::function<StatusOr<Trace>(const std::string& path)>;

struct LoadedRanks {
  std::vector<RankSummary> ranks;  // in the order of `paths`, failures left out
  std::vector<UnreadableRank> unreadable;
};

// threads = 0: all cores (at most one per rank).
LoadedRanks LoadRankSummaries(const std::vector<std::string>& paths, const RankTraceLoader& load,
                              bool prefer_trace_steps, int threads);

}  // namespace cprof
