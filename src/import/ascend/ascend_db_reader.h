// Reads torch_npu's db export: ascend_pytorch_profiler_N.db (every string is an id into
// STRING_IDS, every time is ns) and analysis.db (StepTraceTime, CommAnalyzerTime/Bandwidth/Matrix).
// It builds the same model the text export gives: framework ops (PYTORCH_API) and CANN API calls
// on their threads (globalTid = pid << 32 | tid), device tasks (TASK + COMPUTE_TASK_INFO +
// TASK_PMU_INFO) on NPU streams, HCCL ops and plane tasks on communication tracks, the Overlap
// Analysis rows, memory counters and events, launch flows by connectionId, and the analysis
// tables as `ascend_step_trace`, comm op args and `communication_matrix` (comm_records.h).
#pragma once

#include "import/ascend/ascend_import_context.h"
#include "import/ascend/ascend_layout.h"

namespace cprof {

Status ReadAscendDbExport(const AscendPtLayout& layout, AscendImportContext* ctx);

}  // namespace cprof
