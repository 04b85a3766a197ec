// env_config_cpu: host-side settings of a collected run that are off, read from the collector's
// metadata (`environment`, `cpu_cores`) and the allocator events. Two checks, one finding each:
//  1. thread pools: OMP_NUM_THREADS / MKL_NUM_THREADS / OPENBLAS_NUM_THREADS above the cores;
//     fires when the largest is above the core count;
//  2. host allocator: the default glibc allocator (no jemalloc/tcmalloc/mimalloc in LD_PRELOAD)
//     under so many host allocations that, at an assumed 100 ns each, they take more than 2% of
//     step time (of the analysed span without steps).
// Traces without the collector's environment (Kineto, msprof) yield nothing here; Ascend settings
// are the NPU rules'.
//
// Confidence (confidence.h):
//  - magnitude   = 1 - 1 / (threads / cores) for pools; 1 - 0.02 / (estimated allocator time /
//    step time) for the allocator;
//  - support     = n / (n + 3): n = variables above the cores; n = steps (or seconds) at that rate;
//  - consistency = 1 (a setting holds for the whole run);
//  - specificity = 1.0 for pools (the variable is read, not inferred); 0.5 for the allocator
//    (glibc malloc is often fast enough; the rate only makes it plausible).
// Saving: pools — 0 here: the time oversubscription costs is thread_oversubscription's finding;
// allocator — 50 ns per allocation+free pair of the assumed 100 ns that glibc takes for
// medium-sized blocks under churn (jemalloc/tcmalloc roughly halve it).
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rule_util.h"

namespace cprof {
namespace {

using host_rules::Ms;

constexpr double kAllocShareThreshold = 0.02;
constexpr int64_t kAssumedAllocNs = 100, kAssumedSavedNs = 50;

class EnvConfigCpuRule final : public Rule {
 public:
  std::string_view name() const override { return "env_config_cpu"; }
  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override;
};

void ThreadPools(const DiagnosisContext& ctx, int64_t cores, std::vector<Finding>& out) {
  const Trace& trace = ctx.trace();
  int64_t worst = 0, over = 0;
  std::string settings;
  for (std::string_view var : {"OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS"}) {
    std::optional<std::string> v = host_rules::EnvironmentVar(trace, var);
    if (!v) continue;
    const int64_t n = std::atoll(v->c_str());
    if (n <= cores) continue;
    ++over;
    worst = std::max(worst, n);
    settings += fmt::format("{}{}={}", settings.empty() ? "" : " ", var, n);
  }
  if (over == 0) return;
  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(static_cast<double>(worst) / static_cast<double>(cores), 1.0);
  terms.support = SupportFromCount(over);
  terms.consistency = 1.0;
  terms.specificity = 1.0;
  Finding f;
  f.category = Category::kEnvConfig;
  f.device = std::string(DeviceKindId(ctx.device_kind()));
  f.confidence_terms = terms;
  f.confidence = ComputeConfidence(terms);
  f.saving_method = "Not counted here: the time an oversized pool costs is the thread_oversubscription finding's.";
  f.title = fmt::format("Thread pools are set above the {} cores: {}", cores, settings);
  f.summary = fmt::format(
      "The run's environment sets {}, on a machine with {} cores. Every OpenMP/MKL parallel region then starts more "
      "workers than there are cores; they time-slice and wait at barriers for the ones descheduled.",
      settings, cores);
  f.metrics = {{"max_pool_threads", static_cast<double>(worst), "count"}, {"cpu_cores", static_cast<double>(cores), "count"}};
  f.suggestions = {{"Set the pools to the cores the process may use.", "env",
                    fmt::format("OMP_NUM_THREADS={0} MKL_NUM_THREADS={0}", cores)},
                   {"With several processes per machine (DataLoader workers, one process per rank), divide the cores "
                    "between them.",
                    "env", fmt::format("OMP_NUM_THREADS={}", std::max<int64_t>(1, cores / 2))}};
  out.push_back(std::move(f));
}

void HostAllocator(const DiagnosisContext& ctx, std::vector<Finding>& out) {
  const Trace& trace = ctx.trace();
  const std::string preload = host_rules::EnvironmentVar(trace, "LD_PRELOAD").value_or("");
  for (std::string_view a : {"jemalloc", "tcmalloc", "mimalloc"})
    if (preload.find(a) != std::string::npos) return;
  const MemoryEventTable& m = trace.memory_events;
  int64_t count = 0, first = 0, last = 0;
  for (uint32_t i = 0; i < m.size(); ++i) {
    if (m.bytes[i] <= 0 || m.device[i] >= 0 || !ctx.window().Contains(m.ts_ns[i])) continue;
    if (count == 0 || m.ts_ns[i] < first) first = m.ts_ns[i];
    last = std::max(last, m.ts_ns[i]);
    ++count;
  }
  if (count < 100 || last <= first) return;
  const double rate = static_cast<double>(count) * 1e9 / static_cast<double>(last - first);
  const std::vector<Step>& steps = ctx.steps();
  const int64_t base = steps.empty() ? ctx.span_ns() : host_rules::TotalStepNs(steps);
  if (base <= 0) return;
  const double share = static_cast<double>(count * kAssumedAllocNs) / static_cast<double>(base);
  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(share, kAllocShareThreshold);
  if (terms.magnitude <= 0) return;
  terms.support = SupportFromCount(steps.empty() ? (last - first) / 1'000'000'000 : static_cast<int64_t>(steps.size()));
  terms.consistency = 1.0;
  terms.specificity = 0.5;
  Finding f;
  f.category = Category::kEnvConfig;
  f.device = std::string(DeviceKindId(ctx.device_kind()));
  f.confidence_terms = terms;
  f.confidence = ComputeConfidence(terms);
  f.cost_total_ns = count * kAssumedAllocNs;
  f.cost_per_step_ns = steps.empty() ? 0 : f.cost_total_ns / static_cast<int64_t>(steps.size());
  f.saving_ns = count * kAssumedSavedNs;
  f.saving_method = fmt::format(
      "{} host allocations at an assumed {} ns each with glibc malloc under churn, of which jemalloc/tcmalloc save "
      "about {} ns.",
      count, kAssumedAllocNs, kAssumedSavedNs);
  f.title = fmt::format("{:.0f}k host allocations per second on the default allocator", rate / 1000);
  f.summary = fmt::format(
      "The program made {} host allocations ({:.0f} per second) and LD_PRELOAD names no alternative allocator. "
      "glibc malloc returns and re-fetches memory from the OS for large blocks and contends across threads; "
      "jemalloc or tcmalloc keep size-class caches. Estimated allocator time: {}.",
      count, rate, Ms(f.cost_total_ns));
  f.metrics = {{"host_allocations", static_cast<double>(count), "count"},
               {"allocations_per_s", rate, "per_s"},
               {"estimated_allocator_share", share, "ratio"}};
  f.suggestions = {{"Preload a caching allocator (Debian: apt install libjemalloc2).", "env",
                    "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libjemalloc.so.2"},
                   {"Or keep glibc but stop it from trimming and re-mapping large blocks.", "env",
                    "MALLOC_MMAP_THRESHOLD_=1000000000 MALLOC_TRIM_THRESHOLD_=1000000000"}};
  out.push_back(std::move(f));
}

void EnvConfigCpuRule::Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
  const Trace& trace = ctx.trace();
  if (!host_rules::HasEnvironment(trace)) return;
  const std::optional<int64_t> cores = host_rules::MetadataInt(trace, "cpu_cores");
  if (cores && *cores > 0) ThreadPools(ctx, *cores, out);
  HostAllocator(ctx, out);
}

}  // namespace

std::unique_ptr<Rule> MakeEnvConfigCpuRule() { return std::make_unique<EnvConfigCpuRule>(); }

}  // namespace cprof
