// Where the files of an msprof result live: `PROF_*/mindstudio_profiler_output/` holds the text
// export (msprof_{ts}.json timelines, split into msprof_slice_{n}_{ts}.json when large, and
// op_summary_{ts}.csv, task_time_{ts}.csv, op_statistic_{ts}.csv, api_statistic_{ts}.csv, ...);
// `PROF_*/device_{id}/info.json.{id}` names the rank; `PROF_*/analyze/` may hold
// communication.json and communication_matrix.json. Users may point at PROF_* or at
// mindstudio_profiler_output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace cprof {

struct MsprofLayout {
  std::string root;        // PROF_* (or the folder given)
  std::string output_dir;  // mindstudio_profiler_output
  std::vector<std::string> timelines;  // msprof_*.json, slices in slice order
  std::vector<std::string> op_summary, task_time, op_statistic, api_statistic;
  std::string info_json;   // device_N/info.json.N, or ""
  int64_t device = -1;     // N of device_N
  std::string communication, communication_matrix;  // analyze/*.json, or ""
};

bool IsMsprofFolder(const std::string& path);
std::optional<MsprofLayout> FindMsprofLayout(const std::string& path);

}  // namespace cprof
