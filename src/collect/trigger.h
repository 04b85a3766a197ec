// Triggers: `--trigger "p99_latency>200ms"` writes a trace only when the expression holds over
// a sliding window, holding the seconds before in the collector's memory (a flight recorder)
// and collecting a few seconds after.
//
//   EXPR   := METRIC [ "{span=" NAME "}" ] OP VALUE [ "over" DURATION ]
//   METRIC := latency | p50_latency | p99_latency | step_time | mem | cpu_util
//   OP     := > | >= | < | <=
//   VALUE  := a duration (200ms), bytes (2GB, 512MiB), a percentage (90%) or a number
//
// Latency metrics are over the spans that ended within the window (default 10 s): steps
// (cprof_step, ProfilerStep#N) unless {span=NAME} names other spans. mem is the target's RSS
// (all its processes), cpu_util its CPU use in % of one core. Metric names come from the one
// metric registry, so an unknown one is the registry's error listing the available metrics.
//
//   ASSIGN_OR_RETURN(TriggerSpec spec, ParseTrigger("p99_latency>200ms over 5s"));
//   TriggerEvaluator e({spec});
//   e.OnSpan("ProfilerStep", "step", end_ns, dur_ns);   // as spans complete
//   e.OnGauge(TriggerGauge::kRssBytes, now, rss);       // as /proc is sampled
//   for (const TriggerFiring& f : e.Evaluate(now)) ...  // each time it becomes true
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "base/time_units.h"

namespace cprof {

struct TriggerSpec {
  enum class Metric { kMeanLatency, kP50Latency, kP99Latency, kStepTime, kRss, kCpuUtil };
  enum class Op { kGreater, kGreaterEqual, kLess, kLessEqual };
  std::string text;          // as given
  std::string metric_name;   // registry name
  Metric metric = Metric::kP99Latency;
  std::string span;          // {span=NAME}; empty = steps
  Op op = Op::kGreater;
  double threshold = 0;      // ns, bytes or percent
  TimeNs window_ns = 10 * kNsPerS;
};

StatusOr<TriggerSpec> ParseTrigger(std::string_view text);

enum class TriggerGauge { kRssBytes, kCpuPercent };

struct TriggerFiring {
  size_t trigger = 0;   // index into the specs
  TimeNs at_ns = 0;
  double value = 0;     // the metric's value when it fired
  std::string reason;   // "p99_latency=312ms > 200ms over the last 10s (41 spans)"
};

class TriggerEvaluator {
 public:
  explicit TriggerEvaluator(std::vector<TriggerSpec> specs);

  void OnSpan(std::string_view name, std::string_view category, TimeNs end_ns, TimeNs dur_ns);
  void OnGauge(TriggerGauge gauge, TimeNs ts, double value);
  // Triggers whose expression became true (they fire again only after it was false).
  std::vector<TriggerFiring> Evaluate(TimeNs now);

  const std::vector<TriggerSpec>& specs() const { return specs_; }
  TimeNs longest_window() const;

 private:
  struct State {
    std::deque<std::pair<TimeNs, double>> values;  // (end or sample time, value)
    bool armed = true;
    TimeNs fired_at = -1;  // the last firing; none again until its window has passed
  };
  std::vector<TriggerSpec> specs_;
  std::vector<State> states_;
};

}  // namespace cprof
