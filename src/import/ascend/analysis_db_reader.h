// analysis.db of a torch_npu / msprof export: step breakdown and communication analysis.
//
//   ASSIGN_OR_RETURN(SqliteDb db, SqliteDb::Open(layout.analysis_db));
//   DeviceTaskIndex index(ctx->b().trace());
//   ctx->Attempt(ReadAnalysisDb(db, ctx, &index));   // comm ops attach to the device tasks of index
//
// A missing table is recorded with ctx->Missing(); a table of an unknown schema is an error.
#pragma once

#include "base/status.h"
#include "import/ascend/ascend_import_context.h"
#include "import/ascend/device_task_index.h"
#include "import/sqlite/sqlite_db.h"

namespace cprof {

Status ReadAnalysisDb(const SqliteDb& db, AscendImportContext* ctx, DeviceTaskIndex* index);

}  // namespace cprof
