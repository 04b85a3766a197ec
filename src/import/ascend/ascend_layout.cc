// Resolution of torch_npu result folders and files.
#include "import/ascend/ascend_layout.h"

#include <algorithm>
#include <filesystem>

#include "import/msprof/msprof_layout.h"
#include "import/sqlite/sqlite_db.h"

namespace cprof {
namespace fs = std::filesystem;

namespace {

bool IsFile(const fs::path& p) {
  std::error_code ec;
  return fs::is_regular_file(p, ec);
}
bool IsDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// "profiler_info_3.json" -> 3, "ascend_pytorch_profiler_3.db" -> 3; -1 otherwise.
int64_t TrailingNumber(std::string_view stem, std::string_view prefix) {
  if (!stem.starts_with(prefix)) return -1;
  stem.remove_prefix(prefix.size());
  if (stem.empty()) return -1;
  int64_t v = 0;
  for (char c : stem) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

// Fills the root-level and db files of `l` by listing the two folders once.
void ScanFolders(AscendPtLayout* l) {
  std::error_code ec;
  for (const std::string& dir : {l->root, l->output_dir}) {
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      if (!e.is_regular_file(ec)) continue;
      std::string name = e.path().filename().string();
      std::string stem = e.path().stem().string();
      if (name.ends_with(".json") && (stem == "profiler_info" || TrailingNumber(stem, "profiler_info_") >= 0)) {
        l->profiler_info = e.path().string();
        l->rank_from_file_name = TrailingNumber(stem, "profiler_info_");
      } else if (name == "profiler_metadata.json") {
        l->profiler_metadata = e.path().string();
      } else if (name.ends_with(".db") && stem.starts_with("ascend_pytorch_profiler")) {
        l->pytorch_db = e.path().string();
        if (int64_t r = TrailingNumber(stem, "ascend_pytorch_profiler_"); r >= 0) l->rank_from_file_name = r;
      } else if (name == "analysis.db") {
        l->analysis_db = e.path().string();
      }
    }
  }
}

}  // namespace

const std::vector<std::string_view>& AscendTextExportFiles() {
  static const std::vector<std::string_view> kFiles = {
      "trace_view.json",      "kernel_details.csv",        "step_trace_time.csv", "op_statistic.csv",
      "api_statistic.csv",    "operator_details.csv",      "communication.json",  "communication_matrix.json",
      "memory_record.csv",    "operator_memory.csv",       "npu_module_mem.csv"};
  return kFiles;
}

std::string AscendPtLayout::File(std::string_view name) const {
  fs::path p = fs::path(output_dir) / name;
  return IsFile(p) ? p.string() : std::string();
}

bool AscendPtLayout::HasTextExport() const {
  for (std::string_view f : AscendTextExportFiles()) {
    if (!File(f).empty()) return true;
  }
  return false;
}

bool IsAscendDatabase(const std::string& path) {
  auto db = SqliteDb::Open(path);
  if (!db.ok()) return false;
  if (db->HasTable("STRING_IDS") &&
      (db->HasTable("TASK") || db->HasTable("PYTORCH_API") || db->HasTable("COMMUNICATION_OP") ||
       db->HasTable("CANN_API"))) {
    return true;
  }
  return db->HasTable("StepTraceTime") || db->HasTable("CommAnalyzerTime");
}

std::optional<AscendPtLayout> FindAscendPtLayout(const std::string& path) {
  AscendPtLayout l;
  fs::path p(path);
  if (IsFile(p)) {
    if (p.extension() != ".db" || !IsAscendDatabase(path)) return std::nullopt;
    l.output_dir = p.parent_path().string();
    l.root = p.parent_path().filename() == "ASCEND_PROFILER_OUTPUT" ? p.parent_path().parent_path().string()
                                                                      : l.output_dir;
    ScanFolders(&l);
    // The file named is the one to read, even if its folder holds others.
    if (p.filename() == "analysis.db") {
      l.analysis_db = path;
    } else {
      l.pytorch_db = path;
    }
    return l;
  }
  if (!IsDir(p)) return std::nullopt;
  if (IsDir(p / "ASCEND_PROFILER_OUTPUT")) {
    l.root = p.string();
    l.output_dir = (p / "ASCEND_PROFILER_OUTPUT").string();
  } else {
    l.output_dir = p.string();
    l.root = p.filename() == "ASCEND_PROFILER_OUTPUT" ? p.parent_path().string() : p.string();
  }
  ScanFolders(&l);
  if (!l.HasTextExport() && l.pytorch_db.empty() && l.analysis_db.empty()) return std::nullopt;
  return l;
}

std::vector<std::string> FindProfilerResults(const std::string& dir) {
  std::vector<std::string> out;
  if (FindAscendPtLayout(dir) || IsMsprofFolder(dir)) return {dir};
  std::error_code ec;
  std::vector<std::pair<fs::path, int>> todo = {{fs::path(dir), 0}};
  while (!todo.empty()) {
    auto [cur, depth] = todo.back();
    todo.pop_back();
    for (const auto& e : fs::directory_iterator(cur, ec)) {
      if (!e.is_directory(ec)) continue;
      std::string s = e.path().string();
      std::string name = e.path().filename().string();
      // A folder named like a result is one even when broken, so it is reported, not skipped.
      if (FindAscendPtLayout(s) || IsMsprofFolder(s) || name.ends_with("_ascend_pt") || name.starts_with("PROF_")) {
        out.push_back(s);
      } else if (depth + 1 < 3) {
        todo.push_back({e.path(), depth + 1});
      }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace cprof
