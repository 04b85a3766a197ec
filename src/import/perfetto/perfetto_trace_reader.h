// Reader for Perfetto protobuf traces, including cann-profiler's own .pb files.
#pragma once

#include <memory>

#include "import/trace_reader.h"

namespace cprof {

std::unique_ptr<TraceReader> NewPerfettoTraceReader();

}  // namespace cprof
