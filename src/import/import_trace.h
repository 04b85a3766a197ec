// Imports any supported trace into a finished Trace: detects the format, runs its reader from
// the registry, and finalizes the model.
//
//   ASSIGN_OR_RETURN(Trace trace, ImportTrace("run.pt.trace.json.gz"));
#pragma once

#include <memory>
#include <string>

#include "base/status.h"
#include "import/trace_format.h"
#include "import/trace_reader.h"
#include "model/trace.h"

namespace cprof {

// The registry: the reader for a detected format.
std::unique_ptr<TraceReader> CreateTraceReader(TraceFormat format);

StatusOr<Trace> ImportTrace(const std::string& path, const ImportOptions& options = {});

}  // namespace cprof
