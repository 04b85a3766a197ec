// thread_oversubscription: more busy threads than cores. Read from the collector's per-thread
// CPU use (/proc counters "cpu.percent" on thread tracks, one value per sampling pass): in each
// pass, the threads using at least 10% of a core are busy; their count over the core count
// (metadata `cpu_cores`) is the oversubscription. Fires when busy threads / cores, averaged over
// the passes, is above 1. The configured pools (metadata `torch_intra_op_threads`, environment
// OMP_NUM_THREADS / MKL_NUM_THREADS) are cited when they exceed the cores.
//
// Confidence (confidence.h):
//  - magnitude   = 1 - 1 / (mean busy threads / cores);
//  - support     = n / (n + 3), n = sampling passes with more effective busy threads than cores;
//  - consistency = n / passes;
//  - specificity = 1.0 when a configured pool exceeds the cores (the cause is named); 0.8 when
//    only the busy-thread count shows it.
// Cost: with B busy threads on C cores each runs C/B of the time, so the step's thread loses
// (1 - C/B) of the step. Saving: half of that — capping the pools at the cores returns the
// core to the step's thread, but the other threads' work still needs some of it.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <map>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/host_rule_util.h"
#include "base/intra_op_threads.h"

namespace cprof {
namespace {

using host_rules::Ms;
using host_rules::Pct;

constexpr double kBusyPercent = 10.0;  // threads named in the summary
constexpr int64_t kPassSlackNs = 20'000'000;
constexpr double kMinProcessPercent = 50.0;

class ThreadOversubscriptionRule final : public Rule {
 public:
  std::string_view name() const override { return "thread_oversubscription"; }
  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override;
};

void ThreadOversubscriptionRule::Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const {
  const Trace& trace = ctx.trace();
  const std::optional<int64_t> cores_meta = host_rules::MetadataInt(trace, "cpu_cores");
  if (!cores_meta || *cores_meta <= 0) return;
  const int64_t cores = *cores_meta;
  const TrackTable& tt = trace.tracks;
  const std::vector<Step>& steps = ctx.steps();  // when there are steps, only passes during them count

  // Per-thread CPU counter tracks.
  std::vector<bool> per_thread(tt.size(), false);
  for (uint32_t i = 0; i < tt.size(); ++i) {
    if (tt.kind[i] != TrackKind::kCounter || trace.Str(tt.name_id[i]) != "cpu.percent") continue;
    const TrackId p = tt.parent_id[i];
    per_thread[i] = p != kNoTrack && tt.kind[Index(p)] == TrackKind::kThread;
  }
  // Sampling passes: one /proc pass stamps its threads within a few ms of each other, passes are
  // ~100 ms apart; values within 20 ms of a pass's first value belong to it.
  struct Point {
    int64_t ts;
    double value;
    uint32_t thread;
  };
  std::vector<Point> points;
  const CounterTable& c = trace.counters;
  for (uint32_t i = 0; i < c.size(); ++i) {
    const uint32_t t = Index(c.track_id[i]);
    if (!per_thread[t] || !ctx.window().Contains(c.ts_ns[i])) continue;
    if (!steps.empty() && (c.ts_ns[i] < steps.front().start_ns || c.ts_ns[i] > steps.back().end_ns())) continue;
    points.push_back({c.ts_ns[i], c.value[i], Index(tt.parent_id[t])});
  }
  std::sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.ts < b.ts; });
  // Per pass: CPU percent of every thread, summed and at most.
  struct Pass {
    double sum = 0, max = 0;
  };
  std::vector<Pass> all;
  std::map<uint32_t, double> thread_cpu;  // thread track -> summed percent, to name the busiest
  int64_t pass_start = 0;
  for (const Point& p : points) {
    if (all.empty() || p.ts - pass_start > kPassSlackNs) {
      all.emplace_back();
      pass_start = p.ts;
    }
    all.back().sum += p.value;
    all.back().max = std::max(all.back().max, p.value);
    thread_cpu[p.thread] += p.value;
  }
  // Effective busy threads of a pass: how many threads would be running if each got as much CPU
  // as the busiest one (sum / max). On a machine loaded by other processes every thread gets
  // less, but the ratio holds. Passes where the process is mostly idle say nothing.
  std::vector<double> busy;
  double cpu_sum = 0;
  int64_t over = 0;
  double max_busy = 0;
  for (const Pass& p : all) {
    if (p.sum < kMinProcessPercent || p.max <= 0) continue;
    const double b = p.sum / p.max;
    busy.push_back(b);
    cpu_sum += p.sum;
    max_busy = std::max(max_busy, b);
    if (b > static_cast<double>(cores)) ++over;
  }
  if (busy.size() < 2) return;
  double busy_sum = 0;
  for (double b : busy) busy_sum += b;
  const size_t n_passes = busy.size();
  const double mean_busy = busy_sum / static_cast<double>(n_passes);
  const double ratio = mean_busy / static_cast<double>(cores);
  ConfidenceTerms terms;
  terms.magnitude = MagnitudeOverThreshold(ratio, 1.0);
  if (terms.magnitude <= 0) return;
  terms.support = SupportFromCount(over);
  terms.consistency = static_cast<double>(over) / static_cast<double>(n_passes);

  const std::optional<int64_t> intra = host_rules::MetadataInt(trace, "torch_intra_op_threads");
  int64_t env_threads = 0;
  std::string env_name;
  for (std::string_view var : {"OMP_NUM_THREADS", "MKL_NUM_THREADS"}) {
    std::optional<std::string> v = host_rules::EnvironmentVar(trace, var);
    if (!v) continue;
    const int64_t n = std::atoll(v->c_str());
    if (n > env_threads) env_threads = n, env_name = std::string(var);
  }
  const bool configured_over = (intra && *intra > cores) || env_threads > cores;
  terms.specificity = configured_over ? 1.0 : 0.8;

  const int64_t base = steps.empty() ? ctx.span_ns() : host_rules::TotalStepNs(steps);
  const double lost = 1.0 - std::min(1.0, static_cast<double>(cores) / mean_busy);
  Finding f;
  f.category = Category::kThreadOversubscription;
  f.device = std::string(DeviceKindId(ctx.device_kind()));
  f.confidence_terms = terms;
  f.confidence = ComputeConfidence(terms);
  f.cost_total_ns = static_cast<int64_t>(lost * static_cast<double>(base));
  f.cost_per_step_ns = steps.empty() ? 0 : f.cost_total_ns / static_cast<int64_t>(steps.size());
  f.saving_ns = f.cost_total_ns / 2;
  f.saving_method = fmt::format(
      "With {:.1f} busy threads on {} cores each runs {} of the time, so the step's thread loses 1 - cores/busy = {} of "
      "the step; capping the pools at the cores is assumed to return half of that.",
      mean_busy, cores, Pct(std::min(1.0, static_cast<double>(cores) / mean_busy)), Pct(lost));
  f.title = fmt::format("{:.1f} busy threads compete for {} cores ({:.1f}x oversubscribed{})", mean_busy, cores, ratio,
                        intra && *intra > cores ? fmt::format(", {} intra-op threads", *intra) : std::string());
  std::vector<std::pair<double, uint32_t>> busiest;
  for (const auto& [t, v] : thread_cpu) busiest.emplace_back(v / static_cast<double>(n_passes), t);
  std::sort(busiest.begin(), busiest.end(), std::greater<>());
  std::string names;
  for (size_t i = 0; i < busiest.size() && i < 6; ++i) {
    if (busiest[i].first < kBusyPercent) break;
    if (!names.empty()) names += ", ";
    const std::string_view n = trace.Str(tt.name_id[busiest[i].second]);
    names += fmt::format("{} ({:.0f}%)", n.empty() ? fmt::format("tid {}", tt.tid[busiest[i].second]) : std::string(n),
                         busiest[i].first);
  }
  f.summary = fmt::format(
      "On average {:.1f} threads (at most {:.1f}) were busy in the same sampling interval (the threads' CPU use summed, "
      "over the busiest thread's), on a machine with {} cores; together they used {:.0f}% CPU. {}{}Threads that wait for a core stall whatever "
      "waits on them (OpenMP barriers, the GIL, the step). Busiest: {}.",
      mean_busy, max_busy, cores, cpu_sum / static_cast<double>(n_passes),
      intra ? fmt::format("PyTorch used {} intra-op threads. ", *intra) : std::string(),
      env_threads > 0 ? fmt::format("{}={}. ", env_name, env_threads) : std::string(), names);
  f.metrics = {{"busy_threads_mean", mean_busy, ""},
               {"busy_threads_max", max_busy, ""},
               {"cpu_cores", static_cast<double>(cores), "count"},
               {"oversubscription", ratio, ""},
               {"passes_oversubscribed", static_cast<double>(over), "count"},
               {"process_cpu_percent_mean", cpu_sum / static_cast<double>(n_passes), "percent"}};
  if (intra) f.metrics.push_back({"torch_intra_op_threads", static_cast<double>(*intra), "count"});
  if (!steps.empty()) {  // the slowest steps show the cost
    std::vector<size_t> idx(steps.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](size_t a, size_t b) { return steps[a].dur_ns > steps[b].dur_ns; });
    for (size_t i = 0; i < idx.size() && i < 3; ++i)
      f.events.push_back(ctx.EventRef(steps[idx[i]].slice_row, fmt::format("a slow step ({})", Ms(steps[idx[i]].dur_ns))));
  }
  const int64_t pool = IntraOpThreadsFor(cores, mean_busy, intra.value_or(cores), ctx.device_kind() != DeviceKind::kCpu);
  f.suggestions = {
      {fmt::format("Size the intra-op pool to the cores left for it ({} here), in code or through the environment.", pool),
       "code", fmt::format("torch.set_num_threads({})", pool)},
      {"Set the OpenMP/MKL pools before the process starts (also covers libraries other than PyTorch).", "env",
       fmt::format("OMP_NUM_THREADS={} MKL_NUM_THREADS={}", pool, pool)},
      {"Background Python threads that poll should block or sleep (queue.get(timeout=...), Event.wait(...)) instead "
       "of spinning; they also hold the GIL the training thread needs.",
       "code", "while not stop.wait(0.5):\n    poll()"},
  };
  out.push_back(std::move(f));
}

}  // namespace

std::unique_ptr<Rule> MakeThreadOversubscriptionRule() { return std::make_unique<ThreadOversubscriptionRule>(); }

}  // namespace cprof
