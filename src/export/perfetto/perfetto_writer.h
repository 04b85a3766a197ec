// Writes a Trace as a Perfetto protobuf trace that ui.perfetto.dev opens, keeping everything
// our own reader needs to rebuild the whole model.
#pragma once

#include <string>

#include "base/status.h"
#include "model/trace.h"

namespace cprof {

Status WritePerfettoTrace(const Trace& trace, const std::string& path);

}  // namespace cprof
