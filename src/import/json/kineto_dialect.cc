// Category, tid and flow tables of the PyTorch writers.
#include "import/json/kineto_dialect.h"

#include <array>
#include <charconv>

namespace cprof::json {

bool IsGpuDeviceCategory(std::string_view cat) {
  static constexpr std::array<std::string_view, 10> kDevice = {
      "kernel", "gpu_memcpy", "gpu_memset", "gpu_user_annotation", "cuda_sync",
      "Kernel", "Memcpy", "Memset", "mtia_ccp_events", "gpu_instant_event"};
  for (std::string_view c : kDevice) {
    if (c == cat) return true;
  }
  return false;
}

bool IsKinetoCategory(std::string_view cat) {
  static constexpr std::array<std::string_view, 16> kKineto = {
      "cpu_op", "user_annotation", "gpu_user_annotation", "cuda_runtime", "cuda_driver",
      "kernel", "gpu_memcpy", "gpu_memset", "cuda_sync", "python_function",
      "Trace", "cpu_instant_event", "ac2g", "async_cpu_to_gpu", "Operator", "Runtime"};
  for (std::string_view c : kKineto) {
    if (c == cat) return true;
  }
  return false;
}

std::optional<int64_t> StreamFromTid(std::string_view tid) {
  constexpr std::string_view kPrefix = "stream ";
  if (tid.size() <= kPrefix.size()) return std::nullopt;
  for (size_t i = 0; i < kPrefix.size(); ++i) {
    char c = tid[i];
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    if (c != kPrefix[i]) return std::nullopt;
  }
  int64_t stream = 0;
  const char* begin = tid.data() + kPrefix.size();
  auto r = std::from_chars(begin, tid.data() + tid.size(), stream);
  if (r.ec != std::errc() || r.ptr == begin) return std::nullopt;
  std::string_view rest(r.ptr, tid.data() + tid.size() - r.ptr);
  if (!rest.empty() && rest != " user" && rest != " ") return std::nullopt;
  return stream;
}

std::optional<TrackKind> LegacyDevicePid(std::string_view pid) {
  if (pid == "CUDA functions") return TrackKind::kGpuStream;
  if (pid == "NPU functions") return TrackKind::kNpuStream;
  return std::nullopt;
}

FlowKind FlowKindForCategory(std::string_view cat) {
  if (cat == "ac2g" || cat == "async_cpu_to_gpu" || cat == "async" || cat == "cpu_to_cuda" ||
      cat == "cpu_to_npu") {
    return FlowKind::kLaunch;
  }
  if (cat == "fwdbwd" || cat == "forward_backward") return FlowKind::kFwdBwd;
  if (cat == "async_npu" || cat == "HostToDevice") return FlowKind::kHostToDevice;
  if (cat == "async_task_queue") return FlowKind::kQueue;
  return FlowKind::kOther;
}

bool FlowEndsOnDevice(std::string_view cat) { return FlowKindForCategory(cat) == FlowKind::kLaunch; }

}  // namespace cprof::json
