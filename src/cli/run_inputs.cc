// Expanding --before/--after into the runs' trace paths.
#include "cli/run_inputs.h"

#include <algorithm>
#include <filesystem>

#include "export/export_trace.h"
#include "import/trace_format.h"

namespace cprof::cli {
namespace fs = std::filesystem;
namespace {

// Names that only a trace would have (a format's extension, or .gz); other files in a runs folder
// (logs, notes) are passed over.
bool LooksLikeATrace(const std::string& name) { return ExportFormatFromPath(name).ok() || name.ends_with(".gz"); }

}  // namespace

StatusOr<std::vector<std::string>> ExpandRunPaths(const std::string& spec) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= spec.size()) {
    size_t comma = spec.find(',', start);
    if (comma == std::string::npos) comma = spec.size();
    std::string item = spec.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) continue;
    std::error_code ec;
    if (!fs::exists(item, ec)) return NotFound("{}: no such file or folder", item);
    if (!fs::is_directory(item, ec) || DetectTraceFormat(item).ok()) {
      out.push_back(item);  // a trace file, or a folder that is one trace
      continue;
    }
    std::vector<std::string> found;
    for (const fs::directory_entry& e : fs::directory_iterator(item, ec)) {
      const std::string p = e.path().string();
      const std::string name = e.path().filename().string();
      if (name.starts_with(".") || name.ends_with(".tmp")) continue;
      StatusOr<TraceFormat> format = DetectTraceFormat(p);
      if (format.ok()) {
        found.push_back(p);
      } else if (LooksLikeATrace(name)) {  // a broken run is an error, not one run fewer
        return InvalidInput("{}: a run in this folder is not a trace: {}", item, format.status().message());
      }
    }
    if (ec) return InvalidInput("{}: cannot list the folder: {}", item, ec.message());
    if (found.empty()) return InvalidInput("{}: a folder with no trace in it that any importer recognizes", item);
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  if (out.empty()) return InvalidInput("no run given");
  return out;
}

}  // namespace cprof::cli
