// Format detection from magic bytes and folder layout.
#include "import/trace_format.h"

#include <sys/stat.h>

#include <cctype>
#include <filesystem>

#include "base/byte_source.h"
#include "import/ascend/ascend_layout.h"
#include "import/msprof/msprof_layout.h"
#include "import/nsys/nsys_sqlite_reader.h"
#include "import/sqlite/sqlite_db.h"

namespace cprof {

std::string_view TraceFormatName(TraceFormat f) {
  switch (f) {
    case TraceFormat::kJson: return "json";
    case TraceFormat::kPerfettoPb: return "perfetto_pb";
    case TraceFormat::kNsysSqlite: return "nsys_sqlite";
    case TraceFormat::kAscendPt: return "ascend_pt";
    case TraceFormat::kMsprof: return "msprof";
  }
  return "?";
}

std::string ResolveTorchNpuFolder(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* rel : {"trace_view.json", "ASCEND_PROFILER_OUTPUT/trace_view.json"}) {
    fs::path p = fs::path(path) / rel;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

StatusOr<TraceFormat> DetectTraceFormat(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return NotFound("{}: no such file or directory", path);
  if (S_ISDIR(st.st_mode)) {
    if (FindAscendPtLayout(path)) return TraceFormat::kAscendPt;
    if (IsMsprofFolder(path)) return TraceFormat::kMsprof;
    if (!ResolveTorchNpuFolder(path).empty()) return TraceFormat::kJson;
    if (auto ranks = FindProfilerResults(path); ranks.size() > 1) {
      return InvalidInput("{}: a folder of {} profiler results (one per rank); analyze them together with "
                          "`cann-profiler cluster {}`, or name one of them", path, ranks.size(), path);
    }
    return InvalidInput("{}: a directory that no importer recognizes (expected a torch_npu "
                        "*_ascend_pt folder with trace_view.json)", path);
  }
  // A pipe (`<(zcat run.json.gz)`) or a device: detection reads its first bytes and the importer
  // would read it again from the start, which a pipe cannot give twice.
  if (!S_ISREG(st.st_mode))
    return InvalidInput("{}: not a regular file (a pipe or a device); save the trace to a file first", path);
  if (st.st_size == 0) return InvalidInput("{}: empty file", path);
  if (IsSqliteFile(path)) {
    if (IsNsysDatabase(path)) return TraceFormat::kNsysSqlite;
    if (IsAscendDatabase(path)) return TraceFormat::kAscendPt;
    auto db = SqliteDb::Open(path);
    if (!db.ok()) return db.status();  // a damaged file: SQLite's reason ("disk image is malformed")
    if (db->HasTable("cprof_schema")) {
      return InvalidInput("{}: a cann-profiler SQLite export (`convert`), which is for SQL: ask it with "
                          "`cann-profiler query {} \"SELECT ...\"`; the other commands read the trace it came from",
                          path, path);
    }
    return InvalidInput("{}: an SQLite database that is neither an Nsight Systems export nor a torch_npu "
                        "export", path);
  }
  ASSIGN_OR_RETURN(auto src, OpenByteSource(path));
  char head[512];
  ASSIGN_OR_RETURN(size_t n, src->Read(head, sizeof(head)));
  size_t i = 0;
  if (n >= 3 && static_cast<unsigned char>(head[0]) == 0xEF && static_cast<unsigned char>(head[1]) == 0xBB &&
      static_cast<unsigned char>(head[2]) == 0xBF) {
    i = 3;  // UTF-8 byte order mark
  }
  while (i < n && std::isspace(static_cast<unsigned char>(head[i]))) ++i;
  if (i < n && (head[i] == '{' || head[i] == '[')) return TraceFormat::kJson;
  // A Perfetto trace is a sequence of `packet` fields: tag 0x0A (field 1, length-delimited).
  if (n > 0 && static_cast<unsigned char>(head[0]) == 0x0A) return TraceFormat::kPerfettoPb;
  if (n == 0) return InvalidInput("{}: empty file", path);
  // The byte shown is the decompressed content's: say so, or 0x1f in a hex dump contradicts it.
  return InvalidInput("{}: not a trace format cann-profiler reads (first byte {}0x{:02x}; expected "
                      "JSON, gzip'd JSON, Perfetto protobuf, or an Nsight Systems / torch_npu SQLite file)", path, src->compressed() ? "after gunzip " : "",
                      static_cast<unsigned char>(head[0]));
}

}  // namespace cprof
