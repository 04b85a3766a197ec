// Reads a per-task kernel table — torch_npu's kernel_details.csv or msprof's op_summary_*.csv —
// and gives every column (PMU counters, shapes, block dim, ...) to the device task it describes
// as args. A row with no matching task (no trace_view.json, or a task the trace lacks) becomes a
// slice of its own on its NPU stream (HCCL rows: on the device's communication track).
//
// Header variants handled: `Block Dim`/`Block Num`, with or without a leading `Device_id`,
// `Step Id`, `Name`/`Op Name`, `Start Time(us)`/`Task Start Time(us)`, `Type`/`OP Type`,
// `Accelerator Core`/`Task Type`. Arg keys use the torch_npu spelling whatever the variant.
#pragma once

#include <string>

#include "import/ascend/ascend_import_context.h"
#include "import/ascend/device_task_index.h"

namespace cprof {

Status ReadKernelTable(const std::string& path, AscendImportContext* ctx, DeviceTaskIndex* index);

}  // namespace cprof
