// Reads torch_npu's memory tables: memory_record.csv (allocator totals per component over time)
// and npu_module_mem.csv (reserved memory per CANN module) become counter tracks under their
// device, in MB as written; operator_memory.csv (one row per tensor allocation) becomes memory
// events (alloc, and free at its release time) plus one slice per allocation on the device's
// "operator memory" track, named after the operator, so lifetimes show on the timeline.
#pragma once

#include <string>

#include "import/ascend/ascend_import_context.h"

namespace cprof {

Status ReadMemoryRecord(const std::string& path, AscendImportContext* ctx);
Status ReadNpuModuleMem(const std::string& path, AscendImportContext* ctx);
Status ReadOperatorMemory(const std::string& path, AscendImportContext* ctx);

// "NPU:3" -> 3, "NPU" -> fallback, "CPU" -> -1 (host).
int64_t ParseAscendDevice(std::optional<std::string_view> text, int64_t fallback);

}  // namespace cprof
