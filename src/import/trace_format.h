// Format detection, in one place: looks at the path and the first bytes, never at the name alone.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace cprof {

enum class TraceFormat {
  kJson,        // Chrome trace JSON and its dialects: Kineto, PyTorch 1.x legacy, torch_npu (.gz too)
  kPerfettoPb,  // Perfetto protobuf, including our own .pb files
};

std::string_view TraceFormatName(TraceFormat f);

// Sniffs `path`. kInvalidInput names the file and why nothing recognized it.
StatusOr<TraceFormat> DetectTraceFormat(const std::string& path);

}  // namespace cprof
