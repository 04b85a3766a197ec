// Resolution of msprof PROF_* folders.
#include "import/msprof/msprof_layout.h"

#include <algorithm>
#include <filesystem>
#include <regex>

namespace cprof {
namespace fs = std::filesystem;

namespace {

bool IsDir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

// Orders msprof_slice_2_X before msprof_slice_10_X (numerically), plain files by name.
int64_t SliceIndex(const std::string& name) {
  static const std::regex re(R"(^msprof_slice_(\d+)_)");
  std::smatch m;
  return std::regex_search(name, m, re) ? std::stoll(m[1]) : -1;
}

}  // namespace

std::optional<MsprofLayout> FindMsprofLayout(const std::string& path) {
  fs::path p(path);
  if (!IsDir(p)) return std::nullopt;
  MsprofLayout l;
  if (IsDir(p / "mindstudio_profiler_output")) {
    l.root = p.string();
    l.output_dir = (p / "mindstudio_profiler_output").string();
  } else {
    l.output_dir = p.string();
    l.root = p.filename() == "mindstudio_profiler_output" ? p.parent_path().string() : p.string();
  }
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(l.output_dir, ec)) {
    if (!e.is_regular_file(ec)) continue;
    std::string name = e.path().filename().string();
    auto starts = [&](const char* prefix) { return name.starts_with(prefix); };
    if (starts("msprof_") && name.ends_with(".json")) {
      l.timelines.push_back(e.path().string());
    } else if (name.ends_with(".csv")) {
      if (starts("op_summary_")) l.op_summary.push_back(e.path().string());
      if (starts("task_time_")) l.task_time.push_back(e.path().string());
      if (starts("op_statistic_")) l.op_statistic.push_back(e.path().string());
      if (starts("api_statistic_")) l.api_statistic.push_back(e.path().string());
    }
  }
  if (l.timelines.empty() && l.op_summary.empty() && l.task_time.empty()) return std::nullopt;
  std::sort(l.timelines.begin(), l.timelines.end(), [](const std::string& a, const std::string& b) {
    std::string na = fs::path(a).filename().string(), nb = fs::path(b).filename().string();
    int64_t sa = SliceIndex(na), sb = SliceIndex(nb);
    if (sa != sb) return sa < sb;
    return na < nb;
  });
  for (auto* v : {&l.op_summary, &l.task_time, &l.op_statistic, &l.api_statistic}) std::sort(v->begin(), v->end());
  static const std::regex device_re(R"(^device_(\d+)$)"), info_re(R"(^info\.json\.(\d+)$)");
  for (const auto& e : fs::directory_iterator(l.root, ec)) {
    std::string name = e.path().filename().string();
    std::smatch m;
    if (!e.is_directory(ec) || !std::regex_match(name, m, device_re)) continue;
    l.device = std::stoll(m[1]);
    for (const auto& f : fs::directory_iterator(e.path(), ec)) {
      std::string fname = f.path().filename().string();
      if (std::regex_match(fname, info_re)) l.info_json = f.path().string();
    }
  }
  for (const char* dir : {"analyze", "mindstudio_profiler_output"}) {
    fs::path a = fs::path(l.root) / dir;
    if (l.communication.empty() && fs::is_regular_file(a / "communication.json", ec)) {
      l.communication = (a / "communication.json").string();
    }
    if (l.communication_matrix.empty() && fs::is_regular_file(a / "communication_matrix.json", ec)) {
      l.communication_matrix = (a / "communication_matrix.json").string();
    }
  }
  return l;
}

bool IsMsprofFolder(const std::string& path) { return FindMsprofLayout(path).has_value(); }

}  // namespace cprof
