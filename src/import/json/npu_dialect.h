// What torch_npu's trace_view.json means by its process groups (docs/formats/trace_formats.md
// section 4): groups are recognized by process_name, never by sort index or pid bits, except the
// device index, which msprof encodes in the low 5 bits of the group's "format pid"
// ((host_pid << 10) | (sort_index << 5) | device_id). Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

namespace cprof::json {

enum class NpuGroup : uint8_t {
  kNone,           // Python, CANN, counter groups: host threads / process counters
  kHardware,       // "Ascend Hardware": one NPU stream per tid
  kCommunication,  // "HCCL": communication op and plane rows
  kAnalysis,       // "Overlap Analysis": Computing / Communication / Free rows
};

NpuGroup NpuGroupOf(std::string_view process_name);

// Process names only torch_npu / msprof write; seeing one makes the source format "torch_npu".
bool IsTorchNpuProcessName(std::string_view process_name);

// Flow categories only torch_npu writes.
bool IsTorchNpuFlowCategory(std::string_view cat);

inline int64_t NpuDeviceFromPid(int64_t format_pid) { return format_pid & 31; }

}  // namespace cprof::json
