// A small work queue over the rank paths.
#include "analysis/cluster/rank_loader.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <optional>
#include <thread>

namespace cprof {

LoadedRanks LoadRankSummaries(const std::vector<std::string>& paths, const RankTraceLoader& load,
                              bool prefer_trace_steps, int threads) {
  const size_t n = paths.size();
  std::vector<std::optional<RankSummary>> summaries(n);
  std::vector<std::string> errors(n);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < n; i = next++) {
      try {
        StatusOr<Trace> trace = load(paths[i]);
        if (!trace.ok()) {
          errors[i] = trace.status().message();
          continue;
        }
        RankSummary s = SummarizeRank(*trace, prefer_trace_steps);
        s.path = paths[i];
        summaries[i] = std::move(s);
      } catch (const std::exception& e) {  // a bug must not take the other ranks down
        errors[i] = std::string("internal error: ") + e.what();
      }
    }
  };
  size_t t = threads > 0 ? static_cast<size_t>(threads) : std::max(1u, std::thread::hardware_concurrency());
  t = std::min(t, std::max<size_t>(n, 1));
  std::vector<std::thread> pool;
  for (size_t i = 1; i < t; ++i) pool.emplace_back(worker);
  worker();
  for (auto& th : pool) th.join();
  LoadedRanks out;
  for (size_t i = 0; i < n; ++i) {
    if (summaries[i]) {
      out.ranks.push_back(std::move(*summaries[i]));
    } else {
      out.unreadable.push_back({paths[i], errors[i].empty() ? "unknown error" : errors[i]});
    }
  }
  return out;
}

}  // namespace cprof
