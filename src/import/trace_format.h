// Format detection, in one place: looks at the path and the first bytes, never at the name alone.
#pragma once

#include <string>
#include <string_view>

#include "base/status.h"

namespace cprof {

enum class TraceFormat {
  kJson,        // Chrome trace JSON and its dialects: Kineto, PyTorch 1.x legacy, torch_npu (.gz too)
  kPerfettoPb,  // Perfetto protobuf, including our own .pb files
  kNsysSqlite,  // Nsight Systems SQLite export
  kAscendPt,    // torch_npu *_ascend_pt folder (text or .db export), or one of its .db files
  kMsprof,      // msprof PROF_* folder (mindstudio_profiler_output/ CSV and JSON)
};

std::string_view TraceFormatName(TraceFormat f);

// Sniffs `path`. kInvalidInput names the file and why nothing recognized it.
StatusOr<TraceFormat> DetectTraceFormat(const std::string& path);

// The trace_view.json of a torch_npu *_ascend_pt folder (or of its ASCEND_PROFILER_OUTPUT),
// or "" if `path` is not such a folder.
std::string ResolveTorchNpuFolder(const std::string& path);

}  // namespace cprof
