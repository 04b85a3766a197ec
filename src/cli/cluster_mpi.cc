// Scatter by index, gather as JSON text (MPI_Gather of the 64-bit lengths, then each process's
// bytes to process 0 in messages of at most ChunkBytes()).
#include "cli/cluster_mpi.h"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
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

constexpr int kSummariesTag = 1;

// The largest message, 1 GiB (an MPI count is an int); CPROF_MPI_CHUNK_BYTES lowers it so that a
// test sends a few KB of summaries in several messages.
size_t ChunkBytes() {
  size_t chunk = size_t{1} << 30;
  if (const char* env = std::getenv("CPROF_MPI_CHUNK_BYTES")) {
    long long v = std::atoll(env);
    if (v > 0 && static_cast<size_t>(v) < chunk) chunk = static_cast<size_t>(v);
  }
  return chunk;
}

// Process 0's `paths` replace the others' (NUL-separated, in messages of at most ChunkBytes()).
Status BroadcastPaths(int process, std::vector<std::string>* paths) {
  std::string bytes;
  for (const std::string& p : *paths) bytes.append(p).push_back('\0');
  int64_t length = static_cast<int64_t>(bytes.size());
  RETURN_IF_ERROR(Check(MPI_Bcast(&length, 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Bcast"));
  bytes.resize(static_cast<size_t>(length));
  const size_t chunk = ChunkBytes();
  for (size_t at = 0; at < bytes.size(); at += chunk) {
    int n = static_cast<int>(std::min(chunk, bytes.size() - at));
    RETURN_IF_ERROR(Check(MPI_Bcast(bytes.data() + at, n, MPI_CHAR, 0, MPI_COMM_WORLD), "MPI_Bcast"));
  }
  if (process == 0) return Status::Ok();
  paths->clear();
  for (size_t at = 0; at < bytes.size();) {
    size_t end = bytes.find('\0', at);
    paths->push_back(bytes.substr(at, end - at));
    at = end + 1;
  }
  return Status::Ok();
}

// MPI_Finalize on every way out of a process that joined. (Under MPI's default error handler a
// failed call aborts the whole job, so no process is left waiting for one that returned.)
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
  // FUNNELED: the loading runs on threads (--jobs); MPI is called from this thread only.
  int provided = 0;
  RETURN_IF_ERROR(Check(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided), "MPI_Init_thread"));
  session.ok = true;
  if (provided < MPI_THREAD_FUNNELED) threads = 1;  // an MPI that allows no other thread
  MpiLoad r;
  MPI_Comm_rank(MPI_COMM_WORLD, &r.process);
  MPI_Comm_size(MPI_COMM_WORLD, &r.processes);

  // Process 0's list is the job's: a host that saw other folders (a rank still being copied, or
  // another mount) would otherwise load inputs process 0 does not expect, and miss others.
  std::vector<std::string> job = paths;
  RETURN_IF_ERROR(BroadcastPaths(r.process, &job));
  std::vector<std::string> mine;
  for (size_t i = static_cast<size_t>(r.process); i < job.size(); i += static_cast<size_t>(r.processes)) {
    mine.push_back(job[i]);
  }
  std::string wire = LoadedRanksToJson(LoadRankSummaries(mine, load, prefer_trace_steps, threads));
  // No way out between here and the last message: a process that returned early would leave the
  // others blocked in a collective or a send. Lengths are 64-bit and messages at most a chunk, so
  // no size is refused (an int count would stop at 2 GiB, which --full_trace summaries of
  // thousands of ranks can pass).
  int64_t length = static_cast<int64_t>(wire.size());
  std::vector<int64_t> lengths(r.process == 0 ? static_cast<size_t>(r.processes) : 0);
  RETURN_IF_ERROR(
      Check(MPI_Gather(&length, 1, MPI_INT64_T, lengths.data(), 1, MPI_INT64_T, 0, MPI_COMM_WORLD), "MPI_Gather"));
  const size_t chunk = ChunkBytes();
  if (r.process != 0) {
    for (size_t at = 0; at < wire.size(); at += chunk) {
      int n = static_cast<int>(std::min(chunk, wire.size() - at));
      RETURN_IF_ERROR(Check(MPI_Send(wire.data() + at, n, MPI_CHAR, 0, kSummariesTag, MPI_COMM_WORLD), "MPI_Send"));
    }
    return r;
  }
  std::vector<std::string> parts(lengths.size());
  parts[0] = std::move(wire);
  for (size_t p = 1; p < parts.size(); ++p) {
    parts[p].resize(static_cast<size_t>(lengths[p]));
    for (size_t at = 0; at < parts[p].size(); at += chunk) {
      int n = static_cast<int>(std::min(chunk, parts[p].size() - at));
      RETURN_IF_ERROR(Check(MPI_Recv(parts[p].data() + at, n, MPI_CHAR, static_cast<int>(p), kSummariesTag,
                                     MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                            "MPI_Recv"));
    }
  }

  std::map<std::string, size_t> order;  // input paths are unique (the command reads each once)
  for (size_t i = 0; i < paths.size(); ++i) order.emplace(paths[i], i);
  auto index = [&](const std::string& path) {
    auto it = order.find(path);
    return it == order.end() ? paths.size() : it->second;
  };
  LoadedRanks merged;
  for (size_t p = 0; p < parts.size(); ++p) {
    StatusOr<LoadedRanks> part = LoadedRanksFromJson(parts[p]);
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
