// Reader for msprof results (`PROF_*` or its mindstudio_profiler_output/): the timeline JSON
// (msprof_{ts}.json, or every msprof_slice_{n}_{ts}.json of a split export, in slice order)
// through the JSON reader, op_summary_*.csv as args of the device tasks (the kernel table reader
// torch_npu's kernel_details.csv uses), task_time_*.csv as device tasks when there is no
// timeline, op_statistic / api_statistic as metadata, device_N/info.json.N for the rank, and
// analyze/communication*.json when present. Missing and unreadable files are reported as in the
// torch_npu reader.
#pragma once

#include <memory>

#include "import/trace_reader.h"

namespace cprof {

std::unique_ptr<TraceReader> NewMsprofReader();

}  // namespace cprof
