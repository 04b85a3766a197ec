// Reader for a torch_npu `*_ascend_pt` result (folder, its ASCEND_PROFILER_OUTPUT, or one of its
// .db files). It composes the JSON reader (trace_view.json) with the side tables — kernel
// details as args of device tasks, memory tables as counters and memory events, summary tables
// and communication analysis as metadata and args, profiler_info / profiler_metadata as rank,
// clock sync, config and environment — or reads the db export when there is no text export.
// Missing side files are listed (metadata `missing_files`); unreadable ones are reported
// (`import_problems`) and the rest still imports. Cross-checks: see ascend_cross_checks.h.
#pragma once

#include <memory>

#include "import/trace_reader.h"

namespace cprof {

std::unique_ptr<TraceReader> NewAscendPtReader();

}  // namespace cprof
