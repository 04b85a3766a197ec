// The JSON form of rank summaries, by nlohmann's field-list macros: a field added to a struct
// and not listed here fails LoadedRanksJsonTest's round trip.
#include "analysis/cluster/loaded_ranks_json.h"

#include <nlohmann/json.hpp>

namespace cprof {

NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankStep, step, computing_ns, comm_not_overlapped_ns, overlapped_ns,
                                                communication_ns, free_ns, stage_ns, bubble_ns, preparing_ns)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankCommOp, step, kind, group, name, start_ns, elapse_ns, transit_ns,
                                                wait_ns, sync_ns, idle_ns, has_wait)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankLink, step, op, group, transport, op_name, src_rank, dst_rank,
                                                size_mb, time_ms, bandwidth_gbps)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(RankSummary, path, rank, source_format, step_source, steps, ops, links,
                                                notes, import_errors)
NLOHMANN_DEFINE_TYPE_NON_INTRUSIVE_WITH_DEFAULT(UnreadableRank, path, reason)

std::string LoadedRanksToJson(const LoadedRanks& loaded) {
  nlohmann::json j = {{"ranks", loaded.ranks}, {"unreadable", loaded.unreadable}};
  return j.dump();
}

StatusOr<LoadedRanks> LoadedRanksFromJson(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Internal("rank summaries: not JSON ({} bytes)", text.size());
  if (!j.is_object() || !j.contains("ranks") || !j.contains("unreadable")) {
    return Internal("rank summaries: expected an object with 'ranks' and 'unreadable'");
  }
  try {
    return LoadedRanks{j["ranks"].get<std::vector<RankSummary>>(), j["unreadable"].get<std::vector<UnreadableRank>>()};
  } catch (const nlohmann::json::exception& e) {
    return Internal("rank summaries: {}", e.what());
  }
}

}  // namespace cprof
