// Classifies device-side slices into the buckets of the device-time breakdown, so the
// breakdown and the operator statistics agree on what counts as device work.
//
//   DeviceWorkClassifier classify(trace);
//   switch (classify(row)) { case DeviceWork::kComputation: ... }
//
// GPU streams (TraceLens' rules, exact): only categories `kernel`, `gpu_memcpy`, `gpu_memset`
// count (plus the 2021-era Kineto spellings `Kernel`, `Memcpy`, `Memset`). gpu_memcpy is memcpy;
// ROCm 7.1 legacy copy kernels (`MEMORY_COPY_*`, `__amd_rocclr_copyBuffer*`) are memcpy too; a
// kernel or memset whose name contains nccl, rccl or cross_device_reduce (any case) is
// communication; everything else selected is computation. gpu_user_annotation is not work.
// NPU streams (torch_npu "Ascend Hardware"): with a `Task Type` arg, AI_CORE, AI_VECTOR_CORE,
// AIV, AI_CPU, MIX_AIC, MIX_AIV and DSA_SQE are computation (the set torch_npu's Overlap
// Analysis `Computing` is the union of), PCIE_DMA_SQE and SDMA_SQE are memcpy, and other task
// types (EVENT_*, Notify Wait, Write Value, the HCCL stream's SDMA, placeholders) are not work;
// without a Task Type, names containing hccl/hcom are communication and the rest computation.
// Communication tracks (HCCL groups/planes): every slice is communication.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "model/trace.h"

namespace cprof {

enum class DeviceWork : uint8_t { kNone, kComputation, kCommunication, kMemcpy };
std::string_view DeviceWorkName(DeviceWork w);

class DeviceWorkClassifier {
 public:
  // Keeps a reference to `trace`, which must outlive the classifier.
  explicit DeviceWorkClassifier(const Trace& trace);

  DeviceWork operator()(uint32_t slice_row) const;
  // Whether a track holds device work at all (GPU/NPU stream or communication track).
  static bool IsDeviceWorkTrack(TrackKind k) { return IsDeviceTrack(k); }

 private:
  DeviceWork ClassifyGpu(uint32_t row) const;
  DeviceWork ClassifyNpu(uint32_t row) const;

  const Trace& trace_;
  // Per StringId, computed lazily: 0 = unknown, else 1 + the answer.
  mutable std::vector<uint8_t> gpu_category_;  // 1 + {0 none, 1 kernel, 2 memcpy, 3 memset}
  mutable std::vector<uint8_t> name_class_;    // 1 + DeviceWork for kernel names
  mutable std::vector<uint8_t> task_type_;     // 1 + DeviceWork for NPU task types
  mutable std::vector<uint8_t> npu_name_;      // 1 + DeviceWork for NPU names without a task type
  std::optional<StringId> task_type_key_;
};

}  // namespace cprof
