// Scatter by index, gather as JSON text (MPI_Gather of the lengths, MPI_Gatherv of the bytes).
#include "cli/cluster_mpi.h"

#include <mpi.h>

#include <algorithm>
#include <climits>
#include <map>

#include "analysis/cluster/loaded_ranks_json.h"

namespace cprof::cli {
namespace {

Status Check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return Status::Ok();
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, text, &len);
  return Internal("{} failed: {}", what, std::string(text, static_cast<size_t>(len)));
}

// MPI_Finalize on every way out, so a failed gather does not leave the job hanging.
struct MpiSession {
  bool ok = false;
  ~MpiSession() {
    if (ok) MPI_Finalize();
  }
};

}  // namespace

StatusOr<MpiLoad> LoadRankSummariesOverMpi(const std::vector<std::string>& paths, const RankTraceLoader& load,
                                           bool prefer_trace_steps, int threads) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (initialized) return Internal("MPI is already initialized in this process: --mpi runs once per program");
  MpiSession session;
  RETURN_IF_ERROR(Check(MPI_Init(nullptr, nullptr), "MPI_Init"));
  session.ok = true;
  MpiLoad r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r.process);
  MPI_Comm_size(MPI_COMM_WORLD, &r.processes);

  std::vector<std::string> mine;
  for (size_t i = static_cast<size_t>(r.process); i < paths.size(); i += static_cast<size_t>(r.processes)) {
    mine.push_back(paths[i]);
  }
  std::string wire = LoadedRanksToJson(LoadRankSummaries(mine, load, prefer_trace_steps, threads));
  if (wire.size() > static_cast<size_t>(INT_MAX)) {
    return ResourceLimit("process {}: its rank summaries take {} bytes, more than one MPI message holds", r.process,
                         wire.size());
  }
  int length = static_cast<int>(wire.size());
  std::vector<int> lengths(r.process == 0 ? static_cast<size_t>(r.processes) : 0);
  RETURN_IF_ERROR(Check(MPI_Gather(&length, 1, MPI_INT, lengths.data(), 1, MPI_INT, 0, MPI_COMM_WORLD), "MPI_Gather"));
  std::vector<int> offsets(lengths.size());
  int64_t total = 0;
  for (size_t p = 0; p < lengths.size(); ++p) {
    offsets[p] = static_cast<int>(total);
    total += lengths[p];
  }
  if (total > INT_MAX) return ResourceLimit("the rank summaries take {} bytes, more than one MPI message holds", total);
  std::string all(static_cast<size_t>(total), '\0');
  RETURN_IF_ERROR(Check(MPI_Gatherv(wire.data(), length, MPI_CHAR, all.data(), lengths.data(), offsets.data(), MPI_CHAR,
                                    0, MPI_COMM_WORLD),
                        "MPI_Gatherv"));
  if (r.process != 0) return r;

  std::map<std::string, size_t> order;  // input paths are unique (the command reads each once)
  for (size_t i = 0; i < paths.size(); ++i) order.emplace(paths[i], i);
  auto index = [&](const std::string& path) {
    auto it = order.find(path);
    return it == order.end() ? paths.size() : it->second;
  };
  LoadedRanks merged;
  for (size_t p = 0; p < lengths.size(); ++p) {
    StatusOr<LoadedRanks> part =
        LoadedRanksFromJson(std::string_view(all).substr(static_cast<size_t>(offsets[p]), static_cast<size_t>(lengths[p])));
    if (!part.ok()) return Internal("from MPI process {}: {}", p, part.status().message());
    for (RankSummary& s : part->ranks) merged.ranks.push_back(std::move(s));
    for (UnreadableRank& u : part->unreadable) merged.unreadable.push_back(std::move(u));
  }
  std::stable_sort(merged.ranks.begin(), merged.ranks.end(),
                   [&](const RankSummary& a, const RankSummary& b) { return index(a.path) < index(b.path); });
  std::stable_sort(merged.unreadable.begin(), merged.unreadable.end(),
                   [&](const UnreadableRank& a, const UnreadableRank& b) { return index(a.path) < index(b.path); });
  r.all = std::move(merged);
  return r;
}

}  // namespace cprof::cli
