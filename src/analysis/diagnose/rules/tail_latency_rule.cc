// tail_latency: which operators make the slow steps slow. Slow steps are those above
// `--threshold` when given, else above the p90 of step durations; the rest are fast. For every
// host operator (self time) and device kernel name, and for the untraced/idle parts of the step
// breakdown, the mean time per slow step is compared with the mean per fast step; the names with
// the largest differences explain the gap. Without a --problem high_p99_latency or --threshold the
// first step is left out as warm-up (allocator, caches, autotuning: not a tail).
//
// Fires when slow steps are more than kThreshold slower than fast ones (kDirectedThreshold with
// `--problem high_p99_latency` or a --threshold: the user asked about the tail, so a smaller gap
// is worth explaining). Needs kMinSteps steps.
// Confidence terms (confidence.h):
//  - magnitude   = MagnitudeOverThreshold(slow mean / fast mean - 1, threshold above);
//  - support     = SupportFromCount(slow steps);
//  - consistency = share of slow steps in which the top contributor took longer than its fast-step
//    mean;
//  - specificity = how disproportionately the top kTop contributors grew: with e their share of
//    the slow-fast gap and f their share of the fast step, (e - f) / (1 - f), clamped to [0, 1].
//    A uniform slowdown (a loaded or throttled machine stretches every op alike) gives e == f and
//    names no cause (0); an op that runs only in slow steps gives e ~ 1 (1); a gap spread thinly
//    over everything gives a small e (near 0).
// Saving: for each slow step, the top contributors' excess over their fast-step means: what the
// slow steps would save if those ran as they do in fast steps.
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "analysis/diagnose/rules.h"
#include "analysis/diagnose/rules/rule_support.h"
#include "stats/quantile.h"

namespace cprof {
namespace {

constexpr double kThreshold = 1.0;  // undirected: slow steps twice as long (one-off noise on a busy host stays below)
constexpr double kDirectedThreshold = 0.1;
constexpr size_t kMinSteps = 4;
constexpr size_t kTop = 5;

class TailLatencyRule final : public Rule {
 public:
  std::string_view name() const override { return "tail_latency"; }

  void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override {
    const std::vector<Step>& steps = ctx.steps();
    if (steps.size() < kMinSteps) return;
    const Trace& t = ctx.trace();
    const SliceTable& s = t.slices;
    std::vector<double> durs;
    for (const Step& st : steps) durs.push_back(static_cast<double>(st.dur_ns));
    const bool directed = ctx.options().problem == Problem::kHighP99Latency || ctx.options().slow_threshold_ns;
    const double cut = ctx.options().slow_threshold_ns
                           ? static_cast<double>(*ctx.options().slow_threshold_ns)
                           : Quantile(directed ? durs : std::vector<double>(durs.begin() + 1, durs.end()), 0.9);
    // Undirected, the first step is warm-up (allocator, caches, autotuning), not a tail: left out.
    std::vector<char> use(steps.size(), 1);
    if (!directed) use[0] = 0;
    std::vector<char> slow(steps.size());
    size_t n_slow = 0, n_fast = 0;
    for (size_t i = 0; i < steps.size(); ++i) {
      if (!use[i]) continue;
      slow[i] = durs[i] > cut;
      (slow[i] ? n_slow : n_fast)++;
    }
    if (n_slow == 0 || n_fast < 2) return;
    double slow_mean = 0, fast_mean = 0;
    for (size_t i = 0; i < steps.size(); ++i)
      if (use[i]) (slow[i] ? slow_mean : fast_mean) += durs[i];
    slow_mean /= n_slow;
    fast_mean /= n_fast;
    if (fast_mean <= 0) return;
    const double ratio = slow_mean / fast_mean - 1;

    // Time per contributor per step: host ops by self time, device work by duration, plus the
    // breakdown's untraced parts (which no op name covers).
    std::unordered_map<std::string, std::vector<int64_t>> per;  // name -> per step ns
    std::unordered_map<std::string, uint32_t> longest_slow;      // name -> its longest row in a slow step
    auto add = [&](const std::string& key, size_t step, int64_t ns, std::optional<uint32_t> row) {
      std::vector<int64_t>& v = per[key];
      if (v.empty()) v.assign(steps.size(), 0);
      v[step] += ns;
      if (row && slow[step]) {
        auto [it, fresh] = longest_slow.try_emplace(key, *row);
        if (!fresh && s.dur_ns[*row] > s.dur_ns[it->second]) it->second = *row;
      }
    };
    const std::vector<int64_t>& self = ctx.self_ns();
    for (uint32_t r : ctx.host_op_rows()) {
      const int w = rules::StepIndexAt(steps, s.ts_ns[r]);
      if (w >= 0 && self[r] > 0) add(std::string(t.Str(s.name_id[r])), w, self[r], r);
    }
    for (uint32_t r : ctx.device_rows()) {
      const int w = rules::StepIndexAt(steps, s.ts_ns[r]);
      if (w >= 0) add("[device] " + std::string(t.Str(s.name_id[r])), w, s.dur_ns[r], r);
    }
    const std::vector<StepBreakdown>& parts = ctx.step_breakdown();
    for (size_t i = 0; i < parts.size(); ++i) {
      add("(untraced host time)", i, parts[i].untraced_host_ns, std::nullopt);
      add("(idle between host ops and step edges)", i, parts[i].idle_ns, std::nullopt);
    }
    struct Contributor {
      std::string name;
      double slow_mean, fast_mean;
      double diff() const { return slow_mean - fast_mean; }
    };
    std::vector<Contributor> contributors;
    for (const auto& [name, v] : per) {
      double a = 0, b = 0;
      for (size_t i = 0; i < v.size(); ++i)
        if (use[i]) (slow[i] ? a : b) += static_cast<double>(v[i]);
      contributors.push_back({name, a / n_slow, b / n_fast});
    }
    std::sort(contributors.begin(), contributors.end(), [](const Contributor& x, const Contributor& y) {
      return x.diff() != y.diff() ? x.diff() > y.diff() : x.name < y.name;
    });
    const double gap = slow_mean - fast_mean;
    double explained = 0;
    size_t top = 0;
    for (; top < contributors.size() && top < kTop && contributors[top].diff() > 0; ++top) explained += contributors[top].diff();
    if (top == 0 || gap <= 0) return;
    // Host self times and device times can overlap, so the sum may exceed the gap: cap at 1.
    const double explained_share = std::min(1.0, explained / gap);
    double top_fast = 0;
    for (size_t i = 0; i < top; ++i) top_fast += contributors[i].fast_mean;
    const double fast_share = std::min(1.0, top_fast / fast_mean);
    const double disproportion =
        fast_share >= 1.0 ? 0.0 : std::clamp((explained_share - fast_share) / (1.0 - fast_share), 0.0, 1.0);
    size_t consistent = 0;
    const std::vector<int64_t>& first = per[contributors[0].name];
    for (size_t i = 0; i < steps.size(); ++i)
      if (slow[i] && static_cast<double>(first[i]) > contributors[0].fast_mean) ++consistent;

    Finding f;
    f.category = Category::kTailLatency;
    f.confidence_terms.magnitude = MagnitudeOverThreshold(ratio, directed ? kDirectedThreshold : kThreshold);
    f.confidence_terms.support = SupportFromCount(static_cast<int64_t>(n_slow));
    f.confidence_terms.consistency = static_cast<double>(consistent) / static_cast<double>(n_slow);
    f.confidence_terms.specificity = disproportion;
    f.confidence = ComputeConfidence(f.confidence_terms);
    if (f.confidence <= 0) return;
    f.title = fmt::format("{} slow step{} take {} longer than fast ones; {} explains {}", n_slow, n_slow == 1 ? "" : "s",
                          rules::Percent(ratio), contributors[0].name,
                          rules::FormatNs(static_cast<int64_t>(contributors[0].diff())));
    std::string list;
    for (size_t i = 0; i < top; ++i)
      list += fmt::format("{}{} (+{}: {} vs {})", i ? ", " : "", contributors[i].name,
                          rules::FormatNs(static_cast<int64_t>(contributors[i].diff())),
                          rules::FormatNs(static_cast<int64_t>(contributors[i].slow_mean)),
                          rules::FormatNs(static_cast<int64_t>(contributors[i].fast_mean)));
    f.summary = fmt::format(
        "Steps above {} ({} of {}) average {}, fast steps {}. The difference per slow step is mostly {}; these "
        "explain {} of the gap.",
        ctx.options().slow_threshold_ns ? "the threshold " + ctx.options().threshold_text
                                        : "the p90 (" + rules::FormatNs(static_cast<int64_t>(cut)) + ")",
        n_slow, steps.size(), rules::FormatNs(static_cast<int64_t>(slow_mean)),
        rules::FormatNs(static_cast<int64_t>(fast_mean)), list, rules::Percent(explained_share));
    f.metrics = {{"slow_steps", static_cast<double>(n_slow), "count"},
                 {"fast_steps", static_cast<double>(n_fast), "count"},
                 {"slow_step_mean_ns", slow_mean, "ns"},
                 {"fast_step_mean_ns", fast_mean, "ns"},
                 {"slow_over_fast", ratio, "ratio"},
                 {"explained_fraction", explained_share, "ratio"},
                 {"top_share_of_fast_step", fast_share, "ratio"},
                 {"disproportion", disproportion, "ratio"}};
    for (size_t i = 0; i < top; ++i)
      f.metrics.push_back({"excess_ns:" + contributors[i].name, contributors[i].diff(), "ns"});
    // The slowest step, then each top contributor's longest instance in a slow step.
    size_t slowest = 0;
    for (size_t i = 0; i < steps.size(); ++i)
      if (use[i] && (!use[slowest] || steps[i].dur_ns > steps[slowest].dur_ns)) slowest = i;
    if (steps[slowest].slice_row < s.size()) f.events.push_back(ctx.EventRef(steps[slowest].slice_row, "the slowest step"));
    for (size_t i = 0; i < top; ++i) {
      auto it = longest_slow.find(contributors[i].name);
      if (it != longest_slow.end())
        f.events.push_back(ctx.EventRef(it->second, fmt::format("longest instance in a slow step; +{} per slow step",
                                                                rules::FormatNs(static_cast<int64_t>(contributors[i].diff())))));
    }
    f.saving_ns = static_cast<int64_t>(std::min(explained, gap) * n_slow);
    f.saving_method = "the top contributors' excess over their fast-step means, times the slow steps: what the slow "
                      "steps save if those ran as in fast steps";
    rules::SetCost(ctx, static_cast<int64_t>(gap * n_slow), f);
    f.suggestions.push_back({"Look at what differs in the slow steps at the cited events (inputs of another shape, a "
                             "cache miss, a collective waiting on a slower rank, the input pipeline running dry).",
                             "command", "cann-profiler visualize --trace TRACE --diagnosis root_cause_report.yaml --output map.html"});
    if (contributors[0].name.starts_with("(untraced"))
      f.suggestions.push_back({"The slow steps spend their extra time outside any traced operator: profile Python "
                               "with stacks, or look at the input pipeline.",
                               "code", "torch.profiler.profile(with_stack=True, ...)"});
    f.suggestions.push_back({"If shapes vary between steps, pad or bucket them so every step runs the same kernels.",
                             "", ""});
    out.push_back(std::move(f));
  }
};

}  // namespace

std::unique_ptr<Rule> MakeTailLatencyRule() { return std::make_unique<TailLatencyRule>(); }

}  // namespace cprof
