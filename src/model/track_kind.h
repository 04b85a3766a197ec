// What a track is, so analyses never guess from names.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace cprof {

enum class TrackKind : uint8_t {
  kProcess,        // a host process; parent of its threads
  kThread,         // a host thread: CPU ops, Python, runtime API calls
  kDevice,         // an accelerator (GPU or NPU); parent of its streams
  kGpuStream,      // a GPU stream / HIP queue: kernels, memcpy, memset
  kNpuStream,      // an Ascend NPU stream: device tasks
  kCommunication,  // collective / p2p communication (HCCL, NCCL group tracks)
  kCounter,        // a time series of values
  kAsync,          // async (b/e) spans that may overlap each other
  kAnalysis,       // spans derived by the producing tool (torch_npu "Overlap Analysis")
  kCpuCore,        // a CPU core (scheduling, per-core samples)
};

std::string_view TrackKindName(TrackKind kind);
std::optional<TrackKind> TrackKindFromName(std::string_view name);

// Device-side tracks whose slices run on an accelerator.
inline bool IsDeviceTrack(TrackKind k) {
  return k == TrackKind::kGpuStream || k == TrackKind::kNpuStream || k == TrackKind::kCommunication;
}

}  // namespace cprof
