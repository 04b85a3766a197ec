// runtime_adjustment.yaml as data, and the tuner's knobs mapped onto it (runtime_adjustment.h).
#include "analysis/diagnose/runtime_adjustment.h"

#include <algorithm>

namespace cprof {

std::string_view RuntimeSectionId(RuntimeSection s) {
  switch (s) {
    case RuntimeSection::kThreads: return "threads";
    case RuntimeSection::kEnv: return "env";
    case RuntimeSection::kAllocator: return "allocator";
    case RuntimeSection::kBatch: return "batch";
    case RuntimeSection::kFramework: return "framework";
  }
  return "env";
}

void RuntimeAdjustment::Set(RuntimeSection section, std::string name, std::string value, std::string reason) {
  for (RuntimeSetting& s : settings)
    if (s.section == section && s.name == name) {
      s.value = std::move(value);
      s.reason = std::move(reason);
      return;
    }
  settings.push_back({section, std::move(name), std::move(value), std::move(reason)});
}

const RuntimeSetting* RuntimeAdjustment::Find(RuntimeSection section, std::string_view name) const {
  for (const RuntimeSetting& s : settings)
    if (s.section == section && s.name == name) return &s;
  return nullptr;
}

RuntimeAdjustment RuntimeAdjustmentFromTuned(const std::map<std::string, std::string>& params,
                                             const std::map<std::string, std::string>& why, const std::string& device,
                                             const std::string& result) {
  RuntimeAdjustment a;
  a.producer = "tune";
  a.device = device;
  for (const auto& [name, value] : params) {
    const auto w = why.find(name);
    const std::string reason = result + (w == why.end() ? "" : "; tuned because of " + w->second);
    // The names a space gives its thread knob (the bundled spaces say `threads`).
    const bool threads = name == "num_threads" || name == "threads" || name == "intra_op_threads" ||
                         name == "omp_num_threads" || name == "OMP_NUM_THREADS";
    if (threads) {
      a.Set(RuntimeSection::kThreads, "intra_op", value, reason);
      a.Set(RuntimeSection::kEnv, "OMP_NUM_THREADS", value, reason);
      a.Set(RuntimeSection::kEnv, "MKL_NUM_THREADS", value, reason);
    } else if (name == "alloc_conf") {
      if (value.empty()) {
        a.notes.push_back("alloc_conf: the default allocator settings were best; nothing to set");
        continue;
      }
      a.Set(RuntimeSection::kAllocator, device == "npu" ? "PYTORCH_NPU_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF", value,
            reason);
    } else if (name == "num_workers") {
      a.Set(RuntimeSection::kBatch, "dataloader_workers", value, reason);
    } else if (name == "pin_memory") {
      a.Set(RuntimeSection::kBatch, "pin_memory", value == "1" || value == "true" || value == "True" ? "true" : "false",
            reason);
    } else {
      a.Set(RuntimeSection::kFramework, name, value, reason);
    }
  }
  return a;
}

}  // namespace cprof
