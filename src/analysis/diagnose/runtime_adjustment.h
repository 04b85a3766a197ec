// runtime_adjustment.yaml as data: the runtime settings to apply (thread pools, environment
// variables, allocator, batch/concurrency, framework switches), each with the value and the
// reason. Two producers share it: `recommend-runtime` (runtime_recommendation.h, from a trace and
// its diagnosis) and `tune --from_diagnosis` (the chosen configuration, FromTunedParams below); one
// writer emits it (report/diagnose/runtime_adjustment_yaml.h). Schema in the README's
// "recommend-runtime" section.
//
//   RuntimeAdjustment a;
//   a.Set(RuntimeSection::kEnv, "OMP_NUM_THREADS", "8", "8 cores, 19 busy threads (F2)");
//   std::string yaml = RuntimeAdjustmentToYaml(a, cli::kSchemaVersion);
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace cprof {

enum class RuntimeSection { kThreads, kEnv, kAllocator, kBatch, kFramework };
std::string_view RuntimeSectionId(RuntimeSection s);  // "threads", "env", "allocator", "batch", "framework"

struct RuntimeSetting {
  RuntimeSection section = RuntimeSection::kEnv;
  std::string name;    // "intra_op", "OMP_NUM_THREADS", "PYTORCH_CUDA_ALLOC_CONF", "dataloader_workers"
  std::string value;   // as text; the writer emits integers and true/false as such (env values stay strings)
  std::string reason;  // the finding or metric behind it
};

struct RuntimeAdjustment {
  std::string producer;        // "recommend-runtime" or "tune"
  std::string trace;           // the source trace (recommend-runtime) or diagnosis' trace (tune)
  uint64_t content_hash = 0;   // the trace's content hash (DiagnosisContext::content_hash)
  std::string diagnosis;       // the diagnosis report it came from, when one was given
  std::string device;          // "cpu" | "gpu" | "npu"
  std::vector<RuntimeSetting> settings;  // in the order they were set
  std::vector<std::string> notes;        // what could not be decided and why

  // Adds a setting, or replaces the value and reason of the one with the same section and name.
  void Set(RuntimeSection section, std::string name, std::string value, std::string reason);
  // The setting, or nullptr.
  const RuntimeSetting* Find(RuntimeSection section, std::string_view name) const;
};

// The configuration a tuner chose, in this schema. Known knob names (tune/diagnosis_guidance.h):
// num_threads -> threads.intra_op and OMP/MKL_NUM_THREADS; alloc_conf -> the device's allocator
// variable (PYTORCH_CUDA_ALLOC_CONF, PYTORCH_NPU_ALLOC_CONF; skipped when empty); num_workers and
// pin_memory -> batch.dataloader_workers / batch.pin_memory; anything else (memory_format,
// compile_mode, optimizer_impl, a user's knob) -> framework.<name>. `why` maps a knob to the
// finding that suggested it; `result` says how the value was chosen (e.g. "best of 24 trials").
RuntimeAdjustment RuntimeAdjustmentFromTuned(const std::map<std::string, std::string>& params,
                                             const std::map<std::string, std::string>& why, const std::string& device,
                                             const std::string& result);

}  // namespace cprof
