// The stable catalogue of finding categories. The ids are part of the product's interface: the
// diagnose report, the plan, the tuner (`tune --from_diagnosis`), the performance map and the
// case library key on them. Add new ones at the end; never rename or reuse an id.
//
//   std::string_view id = CategoryId(Category::kLaunchOverhead);        // "launch_overhead"
//   std::optional<Category> c = CategoryFromId("host_gap");
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace cprof {

// X(enumerator, id, one-line meaning). The README's diagnose section lists the same table.
#define CPROF_FINDING_CATEGORIES(X)                                                                      \
  X(kLaunchOverhead, "launch_overhead", "many tiny operators or kernels: launch/dispatch cost dominates") \
  X(kLayoutConversion, "layout_conversion", "time spent converting layouts (NCHW<->NHWC, TransData, contiguous copies)") \
  X(kHostGap, "host_gap", "device or step waits on untraced host work (Python, input pipeline)")         \
  X(kDataloader, "dataloader", "steps wait for the input pipeline")                                     \
  X(kHostDeviceSync, "host_device_sync", "host blocks on the device (item(), synchronize, blocking copies)") \
  X(kDeviceIdle, "device_idle", "the device sits idle inside steps")                                    \
  X(kMemoryChurn, "memory_churn", "allocation, zero-fill or cat-growth dominate")                      \
  X(kMemoryFragmentation, "memory_fragmentation", "reserved memory far above allocated memory")        \
  X(kThreadOversubscription, "thread_oversubscription", "more busy threads than cores")                \
  X(kTailLatency, "tail_latency", "specific operators make the slow steps/requests slow")              \
  X(kExposedCommunication, "exposed_communication", "communication not hidden behind computation")     \
  X(kSlowRank, "slow_rank", "one rank makes the others wait")                                          \
  X(kFusionCandidate, "fusion_candidate", "a frequent operator sequence that a fused operator replaces") \
  X(kAffinityApi, "affinity_api", "a fused or device-affine API exists for what the code does")        \
  X(kCommAlignment, "comm_alignment", "communication sizes are not aligned")                           \
  X(kEnvConfig, "env_config", "allocator, cache or launch settings are off")                           \
  X(kAicpuOps, "aicpu_ops", "operators fall back to the AI CPU (Ascend)")                              \
  X(kDynamicShape, "dynamic_shape", "operators recompile for changing shapes")                         \
  X(kGc, "gc", "Python garbage collection pauses")

enum class Category {
#define CPROF_CATEGORY_ENUM(e, id, doc) e,
  CPROF_FINDING_CATEGORIES(CPROF_CATEGORY_ENUM)
#undef CPROF_CATEGORY_ENUM
};

std::string_view CategoryId(Category c);
std::string_view CategoryDoc(Category c);
std::optional<Category> CategoryFromId(std::string_view id);
// Every id, in catalogue order.
std::vector<std::string_view> CategoryIds();

}  // namespace cprof
