// Where the files of one torch_npu profiling result live. A rank's result is a `*_ascend_pt`
// folder holding `ASCEND_PROFILER_OUTPUT/` (trace_view.json and the CSV/JSON tables of a text
// export, or ascend_pytorch_profiler_N.db and analysis.db of a db export) and, beside it,
// profiler_info_N.json and profiler_metadata.json. Users may point at the rank folder, at
// ASCEND_PROFILER_OUTPUT, or at one of the .db files; all resolve to the same layout.
//
//   std::optional<AscendPtLayout> l = FindAscendPtLayout("run/rank0_ascend_pt");
//   if (l) std::string kd = l->File("kernel_details.csv");   // "" if absent
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cprof {

struct AscendPtLayout {
  std::string root;        // the *_ascend_pt folder (the parent of ASCEND_PROFILER_OUTPUT)
  std::string output_dir;  // ASCEND_PROFILER_OUTPUT, or the folder given when it holds the files
  std::string profiler_info;      // profiler_info_N.json / profiler_info.json, or ""
  std::string profiler_metadata;  // profiler_metadata.json, or ""
  std::string pytorch_db;         // ascend_pytorch_profiler_N.db (or ascend_pytorch_profiler.db), or ""
  std::string analysis_db;        // analysis.db, or ""
  int64_t rank_from_file_name = -1;  // N of profiler_info_N.json / ascend_pytorch_profiler_N.db

  // The path of `name` in output_dir if that file exists, else "".
  std::string File(std::string_view name) const;
  // True when the text export's trace_view.json or any of its tables is present.
  bool HasTextExport() const;
};

// The text export's files, in the order the reader reads them; which of them must be present
// depends on the collection config (memory files need profile_memory, communication files a
// multi-rank job), so an absent one is reported, not fatal.
const std::vector<std::string_view>& AscendTextExportFiles();

// Resolves `path` (a folder or a .db file). nullopt if it is not a torch_npu result.
std::optional<AscendPtLayout> FindAscendPtLayout(const std::string& path);

// True if `path` is an SQLite database written by torch_npu (STRING_IDS with TASK/PYTORCH_API/...)
// or its analysis.db (StepTraceTime / CommAnalyzer* tables).
bool IsAscendDatabase(const std::string& path);

// The rank folders under `dir`: `dir` itself if it is a torch_npu or msprof result, else every
// such result found up to three levels down (a cluster's collection folder), sorted by path.
std::vector<std::string> FindProfilerResults(const std::string& dir);

}  // namespace cprof
