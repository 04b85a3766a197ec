// Facts of the Nsight Systems SQLite schema the importer needs: how globalTid / globalPid pack pid
// and tid, the enums behind CUPTI_ACTIVITY_KIND_MEMCPY.copyKind, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION
// .syncType and NVTX_EVENTS.eventType, and the plain name of a versioned CUPTI callback.
//
//   PidOf(global_tid), TidOf(global_tid);  MemcpyKindName(1) == "HtoD"
//   StripApiVersion("cudaLaunchKernel_v7000") == "cudaLaunchKernel"
#pragma once

#include <cstdint>
#include <iterator>
#include <string_view>

namespace cprof::nsys {

// globalTid / globalPid packing (Nsight Systems docs, "SQLite export examples"): the low 24 bits
// are the tid, the next 24 bits the pid; higher bits identify the VM / host.
inline int64_t PidOf(int64_t global) { return (global >> 24) & 0xFFFFFF; }
inline int64_t TidOf(int64_t global) { return global & 0xFFFFFF; }

// "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": nsys keeps the CUPTI callback's versioned name;
// Kineto and nsys' own reports show the plain API name.
inline std::string_view StripApiVersion(std::string_view name) {
  size_t p = name.rfind("_v");
  if (p == std::string_view::npos || p + 2 >= name.size()) return name;
  for (size_t i = p + 2; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  return name.substr(0, p);
}

inline std::string_view MemcpyKindName(int64_t kind) {
  static constexpr std::string_view kNames[] = {"Unknown", "HtoD",     "DtoH",     "HtoA",    "AtoH",
                                                "AtoA",    "AtoD",     "DtoA",     "DtoD",    "HtoH",
                                                "PtoP",    "UVM HtoD", "UVM DtoH", "UVM DtoD"};
  if (kind >= 0 && kind < static_cast<int64_t>(std::size(kNames))) return kNames[kind];
  return "Unknown";
}

inline std::string_view SyncTypeName(int64_t type) {
  switch (type) {
    case 1:
      return "Event Synchronize";
    case 2:
      return "Stream Wait Event";
    case 3:
      return "Stream Synchronize";
    case 4:
      return "Context Synchronize";
    default:
      return "Synchronize";
  }
}

// NVTX event types (ENUM_NSYS_EVENT_TYPE).
enum NvtxType : int64_t {
  kNvtxMark = 34,
  kNvtxThread = 39,
  kNvtxPushPopRange = 59,
  kNvtxStartEndRange = 60,
  kNvtxDomainCreate = 75,
};

}  // namespace cprof::nsys
