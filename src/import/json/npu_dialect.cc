// Process-group names of torch_npu / msprof timelines.
#include "import/json/npu_dialect.h"

#include <array>

namespace cprof::json {

NpuGroup NpuGroupOf(std::string_view name) {
  if (name == "Ascend Hardware") return NpuGroup::kHardware;
  if (name == "HCCL") return NpuGroup::kCommunication;
  if (name == "Overlap Analysis") return NpuGroup::kAnalysis;
  return NpuGroup::kNone;
}

bool IsTorchNpuProcessName(std::string_view name) {
  static constexpr std::array<std::string_view, 12> kNames = {
      "Ascend Hardware", "CANN", "HCCL", "Overlap Analysis", "AI Core Freq", "Stars Soc Info",
      "Acc PMU", "NPU MEM", "AscendCL", "Task Scheduler", "Step Trace", "MsprofTx"};
  for (std::string_view n : kNames) {
    if (n == name) return true;
  }
  return false;
}

bool IsTorchNpuFlowCategory(std::string_view cat) {
  return cat == "async_npu" || cat == "async_task_queue" || cat == "HostToDevice";
}

}  // namespace cprof::json
