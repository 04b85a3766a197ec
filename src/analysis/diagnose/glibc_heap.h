// glibc malloc settings that keep freed memory in the process instead of returning it to the OS
// every step: the fix `page_fault_churn`, the plan's standard change for memory_churn on CPU and
// `recommend-runtime` all name, so they name the same values.
//
//   env: MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824
//
// Both together: setting either one turns off glibc's dynamic mmap threshold, so the trim
// threshold alone leaves every block above 128 KiB to mmap/munmap (examples/aigc/unet on glibc
// 2.36: 63 -> 240 ms a step), while both cut it to 48-56 ms. 32 MiB is M_MMAP_THRESHOLD's
// documented upper limit on 64-bit (mallopt(3): 4 MiB x sizeof(long)).
#pragma once

#include <string>
#include <string_view>

namespace cprof::glibc_heap {

inline constexpr std::string_view kMmapThresholdVar = "MALLOC_MMAP_THRESHOLD_";
inline constexpr std::string_view kMmapThresholdKeep = "33554432";  // 32 MiB
inline constexpr std::string_view kTrimThresholdVar = "MALLOC_TRIM_THRESHOLD_";
inline constexpr std::string_view kTrimThresholdKeep = "1073741824";  // 1 GiB

// "MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824"
inline std::string KeepHeapEnv() {
  return std::string(kMmapThresholdVar) + "=" + std::string(kMmapThresholdKeep) + " " +
         std::string(kTrimThresholdVar) + "=" + std::string(kTrimThresholdKeep);
}

}  // namespace cprof::glibc_heap
