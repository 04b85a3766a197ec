// Cross-checks of a torch_npu folder import, reported in import stats and in metadata
// `import_cross_checks` (one line per check, saying what matched or what differed):
//   - step_trace_time.csv against the steps recomputed from the trace's Overlap Analysis slices
//     (Computing, Communication, Communication(Not Overlapped), Free summed per ProfilerStep#N
//     window; torch_npu assigns a slice to the step it starts in);
//   - op_statistic.csv's count and total time per (op type, core type) against the imported
//     kernels (device tasks carrying kernel_details.csv's `Type`).
// A check whose inputs are absent is skipped and says so.
#pragma once

#include "import/ascend/ascend_import_context.h"

namespace cprof {

void RunAscendCrossChecks(AscendImportContext* ctx);

}  // namespace cprof
