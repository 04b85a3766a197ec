// Runtime settings from a trace and its diagnosis (runtime_recommendation.h).
#include "analysis/diagnose/runtime_recommendation.h"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

#include "analysis/diagnose/glibc_heap.h"
#include "analysis/diagnose/rules/host_rule_util.h"
#include "base/intra_op_threads.h"

namespace cprof {
namespace {

constexpr std::string_view kEnvVars[] = {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "KMP_BLOCKTIME", "OMP_PROC_BIND",
                                         "PYTORCH_CUDA_ALLOC_CONF", "PYTORCH_NPU_ALLOC_CONF", "TASK_QUEUE_ENABLE",
                                         "ACL_OP_COMPILER_CACHE_MODE", "LD_PRELOAD", "MALLOC_ARENA_MAX"};

// The most confident finding of a category at or above min_confidence: "F2 thread_oversubscription
// (0.81): <title>", with its index; nullptr when none.
struct Cited {
  const Finding* finding = nullptr;
  std::string text;
};

Cited Cite(const Diagnosis& d, Category c, double min_confidence) {
  Cited best;
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    if (f.category != c || f.confidence < min_confidence) continue;
    if (best.finding && best.finding->confidence >= f.confidence) continue;
    best.finding = &f;
    best.text = fmt::format("F{} {} (confidence {:.2f}): {}", i + 1, CategoryId(c), f.confidence, f.title);
  }
  return best;
}

std::optional<double> Metric(const Finding* f, std::string_view name) {
  if (!f) return std::nullopt;
  for (const FindingMetric& m : f->metrics)
    if (m.name == name) return m.value;
  return std::nullopt;
}

// "; was 8" after a reason when the trace recorded the variable; a variable set to nothing ended
// the reason with a dangling "was ".
std::string WasText(const std::map<std::string, std::string>& env, const std::string& name) {
  const auto it = env.find(name);
  if (it == env.end()) return "";
  return it->second.empty() ? "; was set but empty" : "; was " + it->second;
}

}  // namespace

RuntimeFacts ReadRuntimeFacts(const Trace& trace, DeviceKind device) {
  RuntimeFacts facts;
  facts.device = device;
  facts.cores = host_rules::MetadataInt(trace, "cpu_cores");
  facts.intra_op = host_rules::MetadataInt(trace, "torch_intra_op_threads");
  for (std::string_view v : kEnvVars)
    if (std::optional<std::string> value = host_rules::EnvironmentVar(trace, v)) facts.env[std::string(v)] = *value;
  const TrackTable& tt = trace.tracks;
  // CPU in use: per-thread cpu.percent counters summed per sampling pass (passes ~100 ms apart),
  // averaged over the passes where the process was doing something, in cores.
  std::vector<bool> per_thread(tt.size(), false);
  for (uint32_t i = 0; i < tt.size(); ++i) {
    if (tt.kind[i] != TrackKind::kCounter || trace.Str(tt.name_id[i]) != "cpu.percent") continue;
    const TrackId p = tt.parent_id[i];
    per_thread[i] = p != kNoTrack && tt.kind[Index(p)] == TrackKind::kThread;
  }
  std::vector<std::pair<int64_t, double>> points;
  const CounterTable& c = trace.counters;
  for (uint32_t i = 0; i < c.size(); ++i)
    if (per_thread[Index(c.track_id[i])]) points.emplace_back(c.ts_ns[i], c.value[i]);
  std::sort(points.begin(), points.end());
  std::vector<double> pass_sums;
  int64_t pass_start = 0;
  for (const auto& [ts, v] : points) {
    if (pass_sums.empty() || ts - pass_start > 20'000'000) {
      pass_sums.push_back(0);
      pass_start = ts;
    }
    pass_sums.back() += v;
  }
  double sum = 0;
  int n = 0;
  for (double s : pass_sums)
    if (s >= 50) sum += s, ++n;
  if (n > 0) facts.busy_threads = sum / n / 100.0;
  std::set<uint32_t> threads;
  for (uint32_t i = 0; i < trace.slices.size(); ++i) {
    const uint32_t t = Index(trace.slices.track_id[i]);
    if (tt.kind[t] == TrackKind::kThread) threads.insert(t);
  }
  facts.host_threads = static_cast<int64_t>(threads.size());
  return facts;
}

RuntimeAdjustment RecommendRuntime(const RuntimeFacts& facts, const Diagnosis& d, double min_confidence) {
  RuntimeAdjustment a;
  a.producer = "recommend-runtime";
  a.trace = d.trace_path;
  a.content_hash = d.content_hash;
  a.device = std::string(DeviceKindId(facts.device));
  const bool accel = facts.device != DeviceKind::kCpu;
  const Cited over = Cite(d, Category::kThreadOversubscription, min_confidence);
  const Cited churn = Cite(d, Category::kMemoryChurn, min_confidence);
  const Cited frag = Cite(d, Category::kMemoryFragmentation, min_confidence);
  const Cited env = Cite(d, Category::kEnvConfig, min_confidence);
  const Cited loader = Cite(d, Category::kDataloader, min_confidence);
  const Cited gap = Cite(d, Category::kHostGap, min_confidence);
  const Cited launch = Cite(d, Category::kLaunchOverhead, min_confidence);
  const Cited idle = Cite(d, Category::kDeviceIdle, min_confidence);
  const Cited dyn = Cite(d, Category::kDynamicShape, min_confidence);

  // Threads.
  if (facts.cores && *facts.cores > 0) {
    const int64_t cores = *facts.cores;
    const std::optional<double> busy = Metric(over.finding, "busy_threads_mean") ? Metric(over.finding, "busy_threads_mean")
                                                                                  : facts.busy_threads;
    const int64_t pool = facts.intra_op.value_or(cores);
    const int64_t outside = busy ? std::max<int64_t>(0, std::llround(*busy) - pool) : 0;
    const int64_t intra = IntraOpThreadsFor(cores, busy, pool, accel);
    const bool halved = intra < IntraOpThreadsFor(cores, busy, pool, /*on_device=*/false);
    std::string reason = fmt::format("{} cores", cores);
    if (busy) reason += fmt::format(", {:.1f} busy threads observed", *busy);
    if (facts.intra_op) reason += fmt::format(", intra-op pool {}", *facts.intra_op);
    if (outside > 0) reason += fmt::format("; {} busy outside the pool keep their cores", outside);
    if (halved)
      reason += "; on a device trace the host only dispatches, half the cores are left for the input pipeline";
    if (over.finding) reason += "; " + over.text;
    a.Set(RuntimeSection::kThreads, "intra_op", std::to_string(intra), reason);
    a.Set(RuntimeSection::kThreads, "inter_op", "1",
          "eager PyTorch runs operators one after another; inter-op threads only help graphs with independent "
          "branches (fork/wait)");
    const std::string env_reason = fmt::format("OpenMP/MKL pools follow threads.intra_op ({})", intra);
    for (const char* v : {"OMP_NUM_THREADS", "MKL_NUM_THREADS"}) {
      a.Set(RuntimeSection::kEnv, v, std::to_string(intra),
            env_reason + WasText(facts.env, v));
    }
    if (!accel) {
      a.Set(RuntimeSection::kEnv, "OMP_PROC_BIND", "close", "keep each OpenMP thread on one core near its data");
      a.Set(RuntimeSection::kEnv, "OMP_PLACES", "cores", "one OpenMP thread per physical core");
      if (over.finding)
        a.Set(RuntimeSection::kEnv, "KMP_BLOCKTIME", "1",
              "idle OpenMP workers spin 200 ms by default and take cores from the busy threads; " + over.text);
    }
  } else {
    a.notes.push_back("threads: the trace does not record the machine's cores (collector metadata cpu_cores); "
                      "trace with `cann-profiler trace` to get thread counts");
  }

  // Allocator.
  if (accel) {
    const std::string var = facts.device == DeviceKind::kNpu ? "PYTORCH_NPU_ALLOC_CONF" : "PYTORCH_CUDA_ALLOC_CONF";
    const Cited& why = frag.finding ? frag : churn.finding ? churn : env;
    if (why.finding) {
      std::string value = "expandable_segments:True";
      if (frag.finding) value += ",garbage_collection_threshold:0.8";
      a.Set(RuntimeSection::kAllocator, var, value,
            why.text + WasText(facts.env, var));
    }
  } else {
    if (churn.finding) {
      a.Set(RuntimeSection::kAllocator, std::string(glibc_heap::kMmapThresholdVar),
            std::string(glibc_heap::kMmapThresholdKeep),
            "serve blocks up to 32 MiB (M_MMAP_THRESHOLD's documented limit) from the heap instead of mmap/munmap, which zero-fills them "
            "again; set with MALLOC_TRIM_THRESHOLD_ (either alone turns off glibc's dynamic threshold); " + churn.text);
      a.Set(RuntimeSection::kAllocator, std::string(glibc_heap::kTrimThresholdVar),
            std::string(glibc_heap::kTrimThresholdKeep),
            "keep up to 1 GiB of freed memory instead of returning it to the kernel every step; " + churn.text);
    }
    if (frag.finding) {
      a.Set(RuntimeSection::kAllocator, "LD_PRELOAD", "libjemalloc.so.2",
            "jemalloc's size classes fragment less than glibc's arenas in long-running processes; " + frag.text);
      a.Set(RuntimeSection::kAllocator, "MALLOC_CONF", "background_thread:true,dirty_decay_ms:1000",
            "jemalloc returns unused pages in the background; " + frag.text);
    }
  }

  // Ascend runtime switches.
  if (facts.device == DeviceKind::kNpu) {
    const auto tq = facts.env.find("TASK_QUEUE_ENABLE");
    if (tq == facts.env.end() || tq->second != "2")
      a.Set(RuntimeSection::kEnv, "TASK_QUEUE_ENABLE", "2",
            std::string("the host enqueues operators asynchronously in a two-level pipeline") +
                (launch.finding ? "; " + launch.text : env.finding ? "; " + env.text : "") +
                WasText(facts.env, "TASK_QUEUE_ENABLE"));
    if (dyn.finding || env.finding)
      a.Set(RuntimeSection::kEnv, "ACL_OP_COMPILER_CACHE_MODE", "enable",
            "reuse compiled operators across runs; " + (dyn.finding ? dyn.text : env.text));
  }

  // Batch and concurrency.
  if (const Cited& why = loader.finding ? loader : gap; why.finding) {
    const int64_t cores = facts.cores.value_or(8);
    a.Set(RuntimeSection::kBatch, "dataloader_workers", std::to_string(std::clamp<int64_t>(cores / 4, 2, 8)),
          fmt::format("prepare batches in parallel with the step (a quarter of {} cores, 2..8); {}", cores, why.text));
    if (accel) a.Set(RuntimeSection::kBatch, "pin_memory", "true", "page-locked batches copy asynchronously; " + why.text);
    a.Set(RuntimeSection::kBatch, "prefetch_factor", "2", "two batches ready per worker; " + why.text);
  }
  if (accel)
    if (const Cited& why = launch.finding ? launch : idle; why.finding)
      a.Set(RuntimeSection::kBatch, "batch_size_multiplier", "2",
            "the per-step launch and host cost is fixed; a larger batch (or two concurrent requests) amortizes it, "
            "if memory allows; " + why.text);
  return a;
}

}  // namespace cprof
