// Format detection from magic bytes and folder layout.
#include "import/trace_format.h"

#include <sys/stat.h>

#include <cctype>
#include <filesystem>

#include "base/byte_source.h"

namespace cprof {

std::string_view TraceFormatName(TraceFormat f) {
  switch (f) {
    case TraceFormat::kJson: return "json";
    case TraceFormat::kPerfettoPb: return "perfetto_pb";
  }
  return "?";
}

namespace {

// Resolves a torch_npu *_ascend_pt folder (or its ASCEND_PROFILER_OUTPUT) to its trace_view.json.
std::string ResolveFolder(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  for (const char* rel : {"trace_view.json", "ASCEND_PROFILER_OUTPUT/trace_view.json"}) {
    fs::path p = fs::path(path) / rel;
    if (fs::is_regular_file(p, ec)) return p.string();
  }
  return {};
}

}  // namespace

StatusOr<TraceFormat> DetectTraceFormat(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) != 0) return NotFound("{}: no such file or directory", path);
  if (S_ISDIR(st.st_mode)) {
    if (!ResolveFolder(path).empty()) return TraceFormat::kJson;
    return InvalidInput("{}: a directory that no importer recognizes (expected a torch_npu "
                        "*_ascend_pt folder with trace_view.json)", path);
  }
  if (st.st_size == 0) return InvalidInput("{}: empty file", path);
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
  return InvalidInput("{}: not a trace format cann-profiler reads (first byte 0x{:02x}; expected "
                      "JSON, gzip'd JSON or Perfetto protobuf)", path, static_cast<unsigned char>(head[0]));
}

}  // namespace cprof
