// What the PyTorch writers (Kineto 2021-2025, CUDA and ROCm, and the 1.x legacy exporter) mean
// by their categories, tids and flow names; see docs/formats/trace_formats.md sections 2-3.
// Pure functions, thread-safe.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "model/tables.h"
#include "model/track_kind.h"

namespace cprof::json {

// Categories of activities Kineto places on a GPU row: pid = device index, tid = stream.
// Covers the current names (kernel, gpu_memcpy, ...) and the 2021 ones (Kernel, Memcpy, ...).
bool IsGpuDeviceCategory(std::string_view cat);

// Categories only Kineto writes; seeing one makes the source format "kineto".
bool IsKinetoCategory(std::string_view cat);

// The stream number in a 2021-era GPU tid: "stream 7", "stream 7 user", "Stream 7".
std::optional<int64_t> StreamFromTid(std::string_view tid);

// The device lane of a PyTorch 1.x legacy pid: "CUDA functions" -> kGpuStream,
// "NPU functions" -> kNpuStream; nothing for "CPU functions" or any other pid.
std::optional<TrackKind> LegacyDevicePid(std::string_view pid);
inline constexpr std::string_view kLegacyCpuPid = "CPU functions";

// What a Chrome flow (s/t/f) category means (ac2g -> kLaunch, fwdbwd -> kFwdBwd, ...).
FlowKind FlowKindForCategory(std::string_view cat);

// Flows whose end lies on a device row (launch -> kernel): their raw (pid, tid) names a GPU
// stream first, a host thread only if no such stream exists.
bool FlowEndsOnDevice(std::string_view cat);

// Kineto's allocator events: instants named "[memory]".
inline bool IsMemoryEventName(std::string_view name) { return name == "[memory]"; }

// c10::DeviceType value of the CPU in "[memory]" args ("Device Type").
inline constexpr int64_t kC10DeviceTypeCpu = 0;

}  // namespace cprof::json
