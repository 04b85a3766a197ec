// Renders a ClusterReport as the `cluster` command's JSON document (kind "cluster") or Markdown.
// JSON times are integer ns in `_ns` fields; Markdown shows ms.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/cluster/cluster_analysis.h"

namespace cprof::cli {

struct ClusterRunInfo {
  std::vector<std::string> inputs;
  std::string mode;  // "summary_tables" or "full_trace"
  double seconds = 0;
  int processes = 1;  // MPI processes that loaded the ranks (cluster --mpi), else 1
};

nlohmann::ordered_json ClusterReportToJson(const ClusterReport& r, const ClusterRunInfo& info);
std::string ClusterReportToMarkdown(const ClusterReport& r, const ClusterRunInfo& info);

}  // namespace cprof::cli
