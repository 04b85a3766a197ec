// Writes a Trace in another format, atomically (temporary file + rename).
//
//   RETURN_IF_ERROR(ExportTrace(trace, "run.pb", ExportFormat::kPerfettoPb));
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "base/status.h"
#include "model/trace.h"

namespace cprof {

enum class ExportFormat {
  kPerfettoPb,  // .pb / .perfetto-trace: opens in ui.perfetto.dev; our native format
  kChromeJson,  // .json / .json.gz: chrome://tracing, Perfetto UI
  kSqlite,      // .sqlite / .db: one SQL table per trace table (export/sqlite/sqlite_writer.h)
};

std::string_view ExportFormatName(ExportFormat f);
// From a --format name ("pb", "perfetto", "json", "chrome") or nullopt.
std::optional<ExportFormat> ExportFormatFromName(std::string_view name);
// From an output path's extension; kInvalidInput lists the known extensions.
StatusOr<ExportFormat> ExportFormatFromPath(const std::string& path);

Status ExportTrace(const Trace& trace, const std::string& path, ExportFormat format);

// What a format leaves out of this trace, as a sentence for stderr ("" when nothing): Chrome JSON
// has no form for CPU samples and their stacks.
std::string ExportLossNote(const Trace& trace, const std::string& path, ExportFormat format);

}  // namespace cprof
