// The importer registry and the import entry point.
#include "import/import_trace.h"

#include "import/ascend/ascend_pt_reader.h"
#include "import/import_memory.h"
#include "import/json/json_trace_reader.h"
#include "import/msprof/msprof_reader.h"
#include "import/nsys/nsys_sqlite_reader.h"
#include "import/perfetto/perfetto_trace_reader.h"

namespace cprof {

std::unique_ptr<TraceReader> CreateTraceReader(TraceFormat format) {
  switch (format) {
    case TraceFormat::kJson: return NewJsonTraceReader();
    case TraceFormat::kPerfettoPb: return NewPerfettoTraceReader();
    case TraceFormat::kNsysSqlite: return NewNsysSqliteReader();
    case TraceFormat::kAscendPt: return NewAscendPtReader();
    case TraceFormat::kMsprof: return NewMsprofReader();
  }
  return nullptr;
}

StatusOr<Trace> ImportTrace(const std::string& path, const ImportOptions& options) {
  ASSIGN_OR_RETURN(TraceFormat format, DetectTraceFormat(path));
  std::unique_ptr<TraceReader> reader = CreateTraceReader(format);
  Trace trace;
  TraceBuilder builder(&trace);
  RETURN_IF_ERROR(reader->Read(path, options, &builder));
  RETURN_IF_ERROR(CheckImportMemory(trace, options, path));
  RETURN_IF_ERROR(builder.Finalize());
  return trace;
}

}  // namespace cprof
