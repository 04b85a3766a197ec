// Trace-measured tune objectives: parsing the name, and the value in one trial's trace.
#include "cli/tune_trace_objective.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <map>
#include <numeric>
#include <vector>

#include "analysis/compare/run_metrics.h"
#include "analysis/step_detector.h"
#include "stats/quantile.h"

namespace cprof::cli {
namespace {

constexpr std::string_view kStats[] = {"mean", "median", "min", "max", "sum", "count"};

// An ended span that was traced, not a frame rebuilt from stack samples (whose times are the
// sampling interval's guesses, and whose names, `<frozen importlib._bootstrap>`, crowd out the
// program's own).
bool IsTracedSpan(const Trace& trace, uint32_t row) {
  return trace.slices.dur_ns[row] >= 0 && !trace.HoldsSampledFrames(trace.slices.track_id[row]);
}

// Steps, or pseudo-steps made of every ended span called `name`, in start order.
std::vector<Step> SpansOf(const Trace& trace, const std::string& name) {
  if (name == "step") return DetectSteps(trace);
  std::vector<Step> out;
  for (uint32_t i = 0; i < trace.slices.size(); ++i) {
    if (trace.Str(trace.slices.name_id[i]) != name || !IsTracedSpan(trace, i)) continue;
    out.push_back({.id = static_cast<int64_t>(out.size()),
                   .start_ns = trace.slices.ts_ns[i],
                   .dur_ns = trace.slices.dur_ns[i],
                   .name = name,
                   .source = StepSource::kUserAnnotation,
                   .slice_row = i});
  }
  std::sort(out.begin(), out.end(), [](const Step& a, const Step& b) { return a.start_ns < b.start_ns; });
  return out;
}

// " (it has: decode, prefill, ... and 3 more)": the names of the trace's traced spans, those
// that contain the name asked for or are contained in it first ("decodeX" or "Decode" for "decode"), then
// the most frequent, so that a misspelt span name shows the right one.
std::string SpanNamesText(const Trace& trace, std::string_view asked) {
  // Numbered names are one name: ProfilerStep#0 ... #999 filled the list and hid the others.
  auto family = [](std::string_view name) {
    const size_t hash = name.rfind('#');
    if (hash == std::string_view::npos || hash + 1 == name.size() ||
        name.find_first_not_of("0123456789", hash + 1) != std::string_view::npos)
      return std::string(name);
    std::string numbered(name.substr(0, hash + 1));
    numbered.push_back('N');
    return numbered;
  };
  std::map<std::string, int64_t> count;
  for (uint32_t i = 0; i < trace.slices.size(); ++i)
    if (IsTracedSpan(trace, i)) ++count[family(trace.Str(trace.slices.name_id[i]))];
  if (count.empty()) return " (it has no spans)";
  std::vector<std::pair<std::string, int64_t>> names(count.begin(), count.end());
  auto lower = [](std::string_view v) {
    std::string out(v);
    for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
  };
  const std::string want = lower(asked);
  auto near = [&](std::string_view name) {
    const std::string n = lower(name);
    return !want.empty() && !n.empty() && (n.find(want) != n.npos || want.find(n) != want.npos);
  };
  std::stable_sort(names.begin(), names.end(), [&](const auto& a, const auto& b) {
    const bool na = near(a.first), nb = near(b.first);
    return na != nb ? na : a.second > b.second;
  });
  constexpr size_t kShown = 12;
  std::string text;
  for (size_t i = 0; i < names.size() && i < kShown; ++i) text += (i ? ", " : "") + names[i].first;
  if (names.size() > kShown) text += fmt::format(" ... and {} more", names.size() - kShown);
  return " (it has: " + text + ")";
}

}  // namespace

StatusOr<std::optional<TraceObjective>> ParseTraceObjective(const std::string& name) {
  const size_t open = name.find('(');
  if (open == std::string::npos) return std::optional<TraceObjective>();  // the command prints it
  TraceObjective o;
  o.name_ = name;
  const std::string head = name.substr(0, open);
  if (name.back() != ')' || name.size() - open < 3)
    return InvalidInput("--objective '{}': a trace objective is FUNCTION(SPANS), e.g. p99(step), mean(decode) or "
                        "mem_peak(run)",
                        name);
  o.spans_ = name.substr(open + 1, name.size() - open - 2);
  auto metric = MetricRegistry::Default().Find(head);
  if (std::find(std::begin(kStats), std::end(kStats), head) != std::end(kStats)) {
    o.stat_ = head;
  } else if (metric.ok() || metric.status().code() == StatusCode::kUnavailable) {
    if (!metric.ok()) return InvalidInput("--objective '{}': {}", name, metric.status().message());
    if ((*metric)->source == MetricSource::kPmu)
      return InvalidInput("--objective '{}': hardware counters are not read in tuning trials; print the value as a "
                          "JSON line from the command instead",
                          name);
    if (head == "device_util" || head == "compute_util")
      return InvalidInput("--objective '{}': `trace` records no device work on this build (no CUDA or NPU "
                          "collector), so {} has no value; print it as a JSON line from the command instead",
                          name, head);
    o.metric_ = *metric;
    const bool over_spans = IsStepMetric(head);
    if (over_spans == (o.spans_ == "run"))
      return InvalidInput("--objective '{}': {} is measured over {}", name, head,
                          over_spans ? "spans: step or a span name, e.g. " + head + "(step)"
                                     : "the whole run: " + head + "(run)");
  } else if (head.size() > 1 && head[0] == 'p') {
    double q = -1;
    auto [end, ec] = std::from_chars(head.data() + 1, head.data() + head.size(), q);
    if (ec != std::errc() || end != head.data() + head.size() || !(q >= 0 && q <= 100))
      return InvalidInput("--objective '{}': '{}' is not a percentile (p50, p90, p99, p99.9)", name, head);
    o.stat_.assign(1, 'p');  // = "p" set off GCC 12 -Wrestrict (a known false positive) here
    o.quantile_ = q / 100;
  } else {
    return InvalidInput("--objective '{}': unknown function '{}' (mean, median, min, max, sum, count, pNN, or a metric "
                        "of `cann-profiler metrics`)",
                        name, head);
  }
  if (o.stat_.size() && o.spans_ == "run")
    return InvalidInput("--objective '{}': {} is over spans: step or a span name", name, head);
  return std::optional<TraceObjective>(std::move(o));
}

StatusOr<double> TraceObjective::Value(const Trace& trace) const {
  std::vector<Step> spans = spans_ == "run" ? std::vector<Step>() : SpansOf(trace, spans_);
  if (stat_ == "count") return static_cast<double>(spans.size());
  if (spans.empty() && spans_ != "run") {
    // NotFound: the objective is absent from this trial (the study judges whether it ever appears).
    if (spans_ == "step")
      return Status(StatusCode::kNotFound,
                    fmt::format("no steps in the trial's trace (no ProfilerStep#N, step annotations or repeated "
                                "top-level spans) for '{}'{}",
                                name_, SpanNamesText(trace, "step")));
    return Status(StatusCode::kNotFound,
                  fmt::format("no span named '{}' in the trial's trace for '{}'{}", spans_, name_,
                              SpanNamesText(trace, spans_)));
  }
  // Steps per second of the wall time they span, the time between them counted: a data loader
  // that makes the next step wait is slower throughput. 1 / mean(step) chose num_workers 0 (1,427
  // "steps/s", 28 real) over 2 (1,116, 50 real) where only the training part was a step.
  if (metric_ && metric_->name == "throughput" && spans.size() > 1) {
    int64_t first = spans.front().start_ns, last = spans.front().end_ns();
    for (const Step& s : spans) {
      first = std::min(first, s.start_ns);
      last = std::max(last, s.end_ns());
    }
    if (last > first) return static_cast<double>(spans.size()) * 1e9 / static_cast<double>(last - first);
  }
  if (metric_) return RunValue(trace, spans, *metric_, {});
  std::vector<double> ms;
  for (const Step& s : spans) ms.push_back(static_cast<double>(s.dur_ns) / 1e6);
  if (stat_ == "sum") return std::accumulate(ms.begin(), ms.end(), 0.0);
  if (stat_ == "mean") return std::accumulate(ms.begin(), ms.end(), 0.0) / static_cast<double>(ms.size());
  if (stat_ == "min") return *std::min_element(ms.begin(), ms.end());
  if (stat_ == "max") return *std::max_element(ms.begin(), ms.end());
  return Quantile(std::move(ms), stat_ == "median" ? 0.5 : quantile_);
}

}  // namespace cprof::cli
