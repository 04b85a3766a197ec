// The standard change per category and device (category_changes.h).
#include "analysis/diagnose/category_changes.h"

#include <string>

#include <fmt/format.h>

#include "analysis/diagnose/glibc_heap.h"
#include "base/torch_version.h"

namespace cprof {

std::vector<Suggestion> DefaultChanges(Category c, std::string_view device) {
  const bool gpu = device == "gpu", npu = device == "npu";
  const std::string alloc_var = npu ? "PYTORCH_NPU_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF";
  switch (c) {
    case Category::kLaunchOverhead:
      if (npu)
        return {{"Let the host enqueue tasks asynchronously, in a second-level pipeline.", "env",
                 "export TASK_QUEUE_ENABLE=2"},
                {"Capture the step as a graph so many small operators launch once.", "code",
                 "import torchair\nmodel = torch.compile(model, backend=torchair.get_npu_backend())"}};
      if (gpu)
        return {{"Capture the step with CUDA graphs via torch.compile so small kernels launch once.", "code",
                 "model = torch.compile(model, mode=\"reduce-overhead\")"}};
      return {{"Compile the model so small operators are fused and dispatched once.", "code",
               "model = torch.compile(model)"}};
    case Category::kLayoutConversion:
      if (npu)
        return {{"Keep tensors in the device's private format and avoid format casts between operators.", "code",
                 "torch.npu.config.allow_internal_format = True"}};
      return {{"Use one memory format end to end (channels_last for convolution models).", "code",
               "model = model.to(memory_format=torch.channels_last)\nx = x.to(memory_format=torch.channels_last)"}};
    case Category::kHostGap:
    case Category::kDataloader:
      return {{"Prepare batches in worker processes, pinned, ahead of the step.", "code",
               std::string("loader = DataLoader(ds, batch_size=B, num_workers=4, pin_memory=") +
                   (gpu || npu ? "True" : "False") + ", prefetch_factor=2, persistent_workers=True)"}};
    case Category::kHostDeviceSync:
      return {{"Keep values on the device inside the step; read them (.item(), .cpu()) once per N steps.", "code",
               "loss_sum += loss.detach()          # no .item() per step\nif step % 50 == 0: print(loss_sum.item() / 50)"}};
    case Category::kDeviceIdle:
      return {{"Overlap host work with the device: non-blocking copies from pinned memory, prefetch the next batch.",
               "code", std::string("x = x.to(") + (npu ? "\"npu\"" : "\"cuda\"") + ", non_blocking=True)"}};
    case Category::kMemoryChurn:
      return {{"Preallocate buffers that grow every step (torch.cat in a loop) and reuse them; keep the caching "
               "allocator's blocks.",
               "code", "buf = torch.empty(max_len, dim, device=dev)\nbuf[:n].copy_(chunk)   # instead of torch.cat"},
              {"Let the caching allocator grow segments instead of splitting and re-reserving.", "env",
               gpu || npu ? "export " + alloc_var + "=expandable_segments:True"
                          : "export MALLOC_ARENA_MAX=4 " + glibc_heap::KeepHeapEnv()}};
    case Category::kMemoryFragmentation:
      if (gpu || npu)
        return {{"Reduce fragmentation of the caching allocator.", "env",
                 "export " + alloc_var + "=expandable_segments:True,garbage_collection_threshold:0.8"}};
      return {{"Use jemalloc or cap glibc arenas for a long-running CPU process.", "env",
               "export LD_PRELOAD=libjemalloc.so.2 MALLOC_CONF=background_thread:true,dirty_decay_ms:1000"}};
    case Category::kThreadOversubscription:
      return {{"Size the thread pools to the cores (one process per socket or NUMA node when running several).",
               "env", "export OMP_NUM_THREADS=<cores> MKL_NUM_THREADS=<cores>"},
              {"Set PyTorch's pools in code as well.", "code",
               "torch.set_num_threads(<cores>)\ntorch.set_num_interop_threads(1)"}};
    case Category::kTailLatency:
      return {{"Make the slow steps' extra operators regular: pad to fixed shapes, warm up, avoid per-request "
               "allocation.",
               "code", "x = torch.nn.functional.pad(x, (0, max_len - x.shape[-1]))"}};
    case Category::kExposedCommunication:
      if (npu)
        return {{"Overlap gradient all-reduce with backward (bucketed DDP) and let HCCL use larger buckets.", "code",
                 "model = DDP(model, bucket_cap_mb=100, gradient_as_bucket_view=True)"}};
      return {{"Overlap gradient all-reduce with backward by bucketing.", "code",
               "model = DDP(model, bucket_cap_mb=100, gradient_as_bucket_view=True)"}};
    case Category::kSlowRank:
      return {{"Find what the slow rank does differently (data shard size, host, device health) and rebalance.",
               "command", "cann-profiler cluster --traces <rank dirs> --output cluster.md"}};
    case Category::kFusionCandidate:
      return {{"Replace the frequent operator sequence with its fused operator, or let the compiler fuse it.", "code",
               "model = torch.compile(model)"}};
    case Category::kAffinityApi:
      if (npu)
        return {{"Use the NPU-affine fused implementation.", "code",
                 "from torch_npu.optim import NpuFusedAdamW\nopt = NpuFusedAdamW(model.parameters(), lr=lr)"}};
      return {{"Use the fused (or multi-tensor) optimizer.", "code",
               std::string("opt = torch.optim.AdamW(model.parameters(), lr=lr, ") + (gpu ? "fused=True)" : "foreach=True)")}};
    case Category::kCommAlignment:
      return {{"Pad communicated tensors (buckets) to 512-byte multiples.", "code",
               "model = DDP(model, bucket_cap_mb=25)   # and pad parameter sizes to multiples of 128 elements"}};
    case Category::kEnvConfig:
      if (npu)
        return {{"Enable the operator cache, the task queue and expandable allocator segments.", "env",
                 "export TASK_QUEUE_ENABLE=2 ACL_OP_COMPILER_CACHE_MODE=enable PYTORCH_NPU_ALLOC_CONF=expandable_segments:True"}};
      if (gpu)
        return {{"Use expandable allocator segments.", "env", "export PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True"}};
      return {{"Pin OpenMP threads and let idle threads sleep quickly.", "env",
               "export OMP_PROC_BIND=close OMP_PLACES=cores KMP_BLOCKTIME=1"}};
    case Category::kAicpuOps:
      return {{"Cast the operator's inputs to a dtype the AI Core supports (e.g. int64 -> int32, float64 -> float32) "
               "or replace the operator.",
               "code", "idx = idx.to(torch.int32)"}};
    case Category::kDynamicShape:
      if (npu)
        return {{"Pad inputs to a few fixed shapes and compile once per shape bucket.", "code",
                 "torch_npu.npu.set_compile_mode(jit_compile=False)\nx = pad_to_bucket(x, buckets=(128, 256, 512))"}};
      return {{"Pad inputs to a few fixed shapes (bucketing) so kernels and graphs are reused.", "code",
               "x = pad_to_bucket(x, buckets=(128, 256, 512))"}};
    case Category::kGc:
      return {{"Freeze long-lived objects after start-up and raise the collection threshold.", "code",
               "import gc\ngc.freeze()\ngc.set_threshold(100000, 50, 100)"}};
  }
  return {};
}

void NoteTorchCompileNeeds(std::vector<Suggestion>& suggestions, std::string_view torch_version) {
  if (TorchHasCompile(torch_version)) return;
  for (Suggestion& s : suggestions) {
    if (s.snippet.find("torch.compile(") == std::string::npos) continue;
    if (s.snippet.find("torch.jit.") != std::string::npos) continue;  // it gives the 1.x way too
    if (s.text.find("needs PyTorch 2") != std::string::npos) continue;  // noted already
    s.text += fmt::format(" torch.compile needs PyTorch 2.0 or later; the trace ran PyTorch {}: upgrade first.",
                          torch_version);
  }
}

}  // namespace cprof
