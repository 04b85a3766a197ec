// LoadedRanks <-> JSON text: how the processes of `cluster --mpi` send the rank summaries they
// loaded to the process that analyzes them. Every field of RankSummary and UnreadableRank
// round-trips; a summary is a few KB, so a message per process is small.
//
//   std::string wire = LoadedRanksToJson(loaded);
//   StatusOr<LoadedRanks> back = LoadedRanksFromJson(wire);
#pragma once

#include <string>
#include <string_view>

#include "analysis/cluster/rank_loader.h"
#include "base/status.h"

namespace cprof {

std::string LoadedRanksToJson(const LoadedRanks& loaded);

// An error names what failed to parse (a truncated or foreign message).
StatusOr<LoadedRanks> LoadedRanksFromJson(std::string_view text);

}  // namespace cprof
