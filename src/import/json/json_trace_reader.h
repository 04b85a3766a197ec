// Reader for Chrome trace JSON and its dialects (Kineto, PyTorch 1.x legacy, torch_npu).
#pragma once

#include <memory>

#include "import/trace_reader.h"

namespace cprof {

std::unique_ptr<TraceReader> NewJsonTraceReader();

}  // namespace cprof
