// The exporter registry: format names, extensions and dispatch.
#include "export/export_trace.h"

#include <fmt/format.h>

#include "export/chrome/chrome_json_writer.h"
#include "export/perfetto/perfetto_writer.h"
#include "export/sqlite/sqlite_writer.h"

namespace cprof {

std::string_view ExportFormatName(ExportFormat f) {
  switch (f) {
    case ExportFormat::kPerfettoPb: return "pb";
    case ExportFormat::kChromeJson: return "json";
    case ExportFormat::kSqlite: return "sqlite";
  }
  return "?";
}

std::optional<ExportFormat> ExportFormatFromName(std::string_view name) {
  if (name == "pb" || name == "perfetto" || name == "perfetto-trace") return ExportFormat::kPerfettoPb;
  if (name == "json" || name == "chrome" || name == "chrome_json") return ExportFormat::kChromeJson;
  if (name == "sqlite" || name == "db") return ExportFormat::kSqlite;
  return std::nullopt;
}

StatusOr<ExportFormat> ExportFormatFromPath(const std::string& path) {
  auto ends = [&](std::string_view ext) { return path.size() > ext.size() && path.ends_with(ext); };
  if (ends(".pb") || ends(".perfetto-trace") || ends(".pftrace")) return ExportFormat::kPerfettoPb;
  if (ends(".json") || ends(".json.gz")) return ExportFormat::kChromeJson;
  if (ends(".sqlite") || ends(".db")) return ExportFormat::kSqlite;
  return InvalidInput("{}: cannot tell the output format from the extension; use .pb "
                      "(Perfetto), .json or .json.gz (Chrome JSON), .sqlite or .db (SQLite), or pass --format", path);
}

std::string ExportLossNote(const Trace& trace, const std::string& path, ExportFormat format) {
  if (format != ExportFormat::kChromeJson || trace.samples.size() == 0) return "";
  return fmt::format("{} CPU samples (with their stacks) are not in {}: Chrome JSON as written here has no form for "
                     "them; .pb or .sqlite keeps them",
                     trace.samples.size(), path);
}

Status ExportTrace(const Trace& trace, const std::string& path, ExportFormat format) {
  switch (format) {
    case ExportFormat::kPerfettoPb: return WritePerfettoTrace(trace, path);
    case ExportFormat::kChromeJson: return WriteChromeJson(trace, path);
    case ExportFormat::kSqlite: return WriteSqlite(trace, path);
  }
  return Internal("unknown export format");
}

}  // namespace cprof
