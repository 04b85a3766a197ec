// Device work classification (TraceLens' GPU rules; torch_npu's NPU task types).
#include "analysis/device_work.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <regex>

namespace cprof {
namespace {

bool ContainsNoCase(std::string_view hay, std::string_view needle) {
  auto it = std::search(hay.begin(), hay.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != hay.end();
}

enum GpuCategory : uint8_t { kNotGpuWork = 0, kKernel = 1, kMemcpyCat = 2, kMemsetCat = 3 };

GpuCategory GpuCategoryOf(std::string_view cat) {
  if (cat == "kernel" || cat == "Kernel") return kKernel;
  if (cat == "gpu_memcpy" || cat == "Memcpy") return kMemcpyCat;
  if (cat == "gpu_memset" || cat == "Memset") return kMemsetCat;
  return kNotGpuWork;
}

// TraceLens util: communication kernels by name (regex search, case-insensitive).
bool IsCommKernelName(std::string_view name) {
  return ContainsNoCase(name, "nccl") || ContainsNoCase(name, "rccl") ||
         ContainsNoCase(name, "cross_device_reduce");
}

bool IsRocmLegacyCopyKernel(std::string_view name) {
  static const std::regex kRe(
      R"(^(MEMORY_COPY_(HOST_TO_DEVICE|DEVICE_TO_HOST|DEVICE_TO_DEVICE)|__amd_rocclr_copyBuffer(Rect)?(Aligned)?)(\.kd)?$)",
      std::regex::optimize);
  return std::regex_match(name.begin(), name.end(), kRe);
}

DeviceWork NpuTaskTypeWork(std::string_view type) {
  static constexpr std::array<std::string_view, 7> kCompute = {
      "AI_CORE", "AI_VECTOR_CORE", "AIV", "AI_CPU", "MIX_AIC", "MIX_AIV", "DSA_SQE"};
  static constexpr std::array<std::string_view, 2> kMemcpy = {"PCIE_DMA_SQE", "SDMA_SQE"};
  if (std::find(kCompute.begin(), kCompute.end(), type) != kCompute.end()) return DeviceWork::kComputation;
  if (std::find(kMemcpy.begin(), kMemcpy.end(), type) != kMemcpy.end()) return DeviceWork::kMemcpy;
  return DeviceWork::kNone;
}

uint8_t& Slot(std::vector<uint8_t>& cache, StringId id) {
  if (cache.size() <= Index(id)) cache.resize(Index(id) + 1, 0);
  return cache[Index(id)];
}

}  // namespace

std::string_view DeviceWorkName(DeviceWork w) {
  switch (w) {
    case DeviceWork::kNone: return "none";
    case DeviceWork::kComputation: return "computation";
    case DeviceWork::kCommunication: return "communication";
    case DeviceWork::kMemcpy: return "memcpy";
  }
  return "?";
}

DeviceWorkClassifier::DeviceWorkClassifier(const Trace& trace)
    : trace_(trace), task_type_key_(trace.strings.Find("Task Type")) {}

DeviceWork DeviceWorkClassifier::operator()(uint32_t row) const {
  TrackId track = trace_.slices.track_id[row];
  if (track == kNoTrack || trace_.slices.dur_ns[row] < 0) return DeviceWork::kNone;
  switch (trace_.tracks.kind[Index(track)]) {
    case TrackKind::kGpuStream: return ClassifyGpu(row);
    case TrackKind::kNpuStream: return ClassifyNpu(row);
    case TrackKind::kCommunication: return DeviceWork::kCommunication;
    default: return DeviceWork::kNone;
  }
}

DeviceWork DeviceWorkClassifier::ClassifyGpu(uint32_t row) const {
  StringId cat_id = trace_.slices.category_id[row];
  uint8_t& cat_slot = Slot(gpu_category_, cat_id);
  if (cat_slot == 0) cat_slot = 1 + GpuCategoryOf(trace_.Str(cat_id));
  GpuCategory cat = static_cast<GpuCategory>(cat_slot - 1);
  if (cat == kNotGpuWork) return DeviceWork::kNone;
  if (cat == kMemcpyCat) return DeviceWork::kMemcpy;
  StringId name_id = trace_.slices.name_id[row];
  uint8_t& name_slot = Slot(name_class_, name_id);
  if (name_slot == 0) {
    std::string_view name = trace_.Str(name_id);
    DeviceWork w = DeviceWork::kComputation;
    if (IsCommKernelName(name)) w = DeviceWork::kCommunication;
    // Legacy copy kernels are memcpy only with category kernel (not memset).
    name_slot = 1 + static_cast<uint8_t>(w);
    if (w == DeviceWork::kComputation && IsRocmLegacyCopyKernel(name)) {
      name_slot = 1 + static_cast<uint8_t>(DeviceWork::kMemcpy);
    }
  }
  DeviceWork w = static_cast<DeviceWork>(name_slot - 1);
  if (w == DeviceWork::kMemcpy && cat != kKernel) return DeviceWork::kComputation;
  return w;
}

DeviceWork DeviceWorkClassifier::ClassifyNpu(uint32_t row) const {
  if (task_type_key_) {
    std::optional<Value> v = trace_.args.Find(trace_.slices.arg_set_id[row], *task_type_key_);
    if (v && v->type == Value::Type::kString) {
      uint8_t& slot = Slot(task_type_, v->s);
      if (slot == 0) slot = 1 + static_cast<uint8_t>(NpuTaskTypeWork(trace_.Str(v->s)));
      return static_cast<DeviceWork>(slot - 1);
    }
  }
  StringId name_id = trace_.slices.name_id[row];
  uint8_t& slot = Slot(npu_name_, name_id);
  if (slot == 0) {
    std::string_view name = trace_.Str(name_id);
    bool comm = ContainsNoCase(name, "hccl") || ContainsNoCase(name, "hcom");
    slot = 1 + static_cast<uint8_t>(comm ? DeviceWork::kCommunication : DeviceWork::kComputation);
  }
  return static_cast<DeviceWork>(slot - 1);
}

}  // namespace cprof
