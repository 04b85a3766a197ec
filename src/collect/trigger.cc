// Trigger expressions and their sliding-window evaluation.
#include "collect/trigger.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <numeric>

#include <fmt/format.h>

#include "base/byte_size.h"
#include "stats/metric_registry.h"
#include "stats/quantile.h"

namespace cprof {
namespace {

constexpr size_t kMinSpans = 5;  // a quantile of fewer spans says little

std::string Trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

bool IsLatency(TriggerSpec::Metric m) {
  return m == TriggerSpec::Metric::kMeanLatency || m == TriggerSpec::Metric::kP50Latency ||
         m == TriggerSpec::Metric::kP99Latency || m == TriggerSpec::Metric::kStepTime;
}

std::string FormatValue(const TriggerSpec& s, double v) {
  if (IsLatency(s.metric)) return FormatDuration(static_cast<TimeNs>(v));
  // In MiB, as the threshold was read (mem>20M is 20 MiB; printed in MB it read "21.0 MB").
  if (s.metric == TriggerSpec::Metric::kRss) return fmt::format("{:.1f} MiB", v / 1048576.0);
  return fmt::format("{:.1f}%", v);
}

}  // namespace

StatusOr<TriggerSpec> ParseTrigger(std::string_view text) {
  TriggerSpec spec;
  spec.text = std::string(text);
  std::string t = Trim(text);
  auto bad = [&](std::string_view why) {
    return InvalidInput("--trigger '{}': {} (expected METRIC[{{span=NAME}}] OP VALUE [over DURATION], "
                        "e.g. \"p99_latency>200ms\")",
                        text, why);
  };
  // Optional "over DURATION" at the end.
  if (size_t over = t.rfind(" over "); over != std::string::npos) {
    StatusOr<TimeNs> window = ParseDuration(Trim(t.substr(over + 6)));
    if (!window.ok()) return bad("over: " + window.status().message());
    spec.window_ns = *window;
    if (spec.window_ns <= 0) return bad("the window must be positive");
    t = Trim(t.substr(0, over));
  }
  size_t op = t.find_first_of("<>");
  if (op == std::string::npos) return bad("no comparison (>, >=, <, <=)");
  std::string lhs = Trim(t.substr(0, op));
  bool eq = op + 1 < t.size() && t[op + 1] == '=';
  spec.op = t[op] == '>' ? (eq ? TriggerSpec::Op::kGreaterEqual : TriggerSpec::Op::kGreater)
                         : (eq ? TriggerSpec::Op::kLessEqual : TriggerSpec::Op::kLess);
  std::string rhs = Trim(t.substr(op + (eq ? 2 : 1)));
  if (size_t brace = lhs.find('{'); brace != std::string::npos) {
    if (lhs.back() != '}' || lhs.compare(brace, 6, "{span=") != 0) return bad("the filter must be {span=NAME}");
    spec.span = lhs.substr(brace + 6, lhs.size() - brace - 7);
    lhs = Trim(lhs.substr(0, brace));
  }
  ASSIGN_OR_RETURN(const MetricInfo* info, MetricRegistry::Default().Find(lhs));
  spec.metric_name = info->name;
  static const std::pair<const char*, TriggerSpec::Metric> kMetrics[] = {
      {"latency", TriggerSpec::Metric::kMeanLatency}, {"p50_latency", TriggerSpec::Metric::kP50Latency},
      {"p99_latency", TriggerSpec::Metric::kP99Latency}, {"step_time", TriggerSpec::Metric::kStepTime},
      {"mem", TriggerSpec::Metric::kRss},                {"cpu_util", TriggerSpec::Metric::kCpuUtil}};
  auto it = std::find_if(std::begin(kMetrics), std::end(kMetrics), [&](const auto& m) { return lhs == m.first; });
  if (it == std::end(kMetrics)) {
    return bad(fmt::format("'{}' cannot be watched while collecting; usable: latency, p50_latency, "
                           "p99_latency, step_time, mem, cpu_util",
                           lhs));
  }
  spec.metric = it->second;
  if (!spec.span.empty() && !IsLatency(spec.metric)) return bad("{span=...} applies to latency metrics only");
  if (rhs.empty()) return bad("no value");
  if (IsLatency(spec.metric)) {
    StatusOr<TimeNs> d = ParseDuration(rhs);
    if (!d.ok()) return bad("the value needs a time unit (200ms)");
    spec.threshold = static_cast<double>(*d);
  } else if (spec.metric == TriggerSpec::Metric::kRss) {
    StatusOr<uint64_t> b = ParseByteSize(rhs);
    if (!b.ok()) return bad(b.status().message());
    spec.threshold = static_cast<double>(*b);
  } else {
    std::string num = rhs.back() == '%' ? rhs.substr(0, rhs.size() - 1) : rhs;
    auto [end, ec] = std::from_chars(num.data(), num.data() + num.size(), spec.threshold);
    if (ec != std::errc() || end != num.data() + num.size()) return bad("the value must be a percentage (90%)");
  }
  return spec;
}

TriggerEvaluator::TriggerEvaluator(std::vector<TriggerSpec> specs)
    : specs_(std::move(specs)), states_(specs_.size()) {}

TimeNs TriggerEvaluator::longest_window() const {
  TimeNs w = 0;
  for (const auto& s : specs_) w = std::max(w, s.window_ns);
  return w;
}

void TriggerEvaluator::OnSpan(std::string_view name, std::string_view category, TimeNs end_ns, TimeNs dur_ns) {
  bool is_step = category == "step" || name.rfind("ProfilerStep#", 0) == 0;
  for (size_t i = 0; i < specs_.size(); ++i) {
    const TriggerSpec& s = specs_[i];
    if (!IsLatency(s.metric)) continue;
    if (s.span.empty() ? !is_step : name != s.span) continue;
    states_[i].values.emplace_back(end_ns, static_cast<double>(dur_ns));
  }
}

void TriggerEvaluator::OnGauge(TriggerGauge gauge, TimeNs ts, double value) {
  for (size_t i = 0; i < specs_.size(); ++i) {
    const TriggerSpec& s = specs_[i];
    bool match = (gauge == TriggerGauge::kRssBytes && s.metric == TriggerSpec::Metric::kRss) ||
                 (gauge == TriggerGauge::kCpuPercent && s.metric == TriggerSpec::Metric::kCpuUtil);
    if (match) states_[i].values.emplace_back(ts, value);
  }
}

std::vector<TriggerFiring> TriggerEvaluator::Evaluate(TimeNs now) {
  std::vector<TriggerFiring> fired;
  for (size_t i = 0; i < specs_.size(); ++i) {
    const TriggerSpec& s = specs_[i];
    State& st = states_[i];
    while (!st.values.empty() && st.values.front().first < now - s.window_ns) st.values.pop_front();
    if (st.values.empty()) continue;
    double value;
    size_t n = st.values.size();
    if (IsLatency(s.metric)) {
      if (n < kMinSpans) continue;
      std::vector<double> v;
      v.reserve(n);
      for (const auto& [ts, x] : st.values) v.push_back(x);
      if (s.metric == TriggerSpec::Metric::kP50Latency) {
        value = Quantile(std::move(v), 0.5);
      } else if (s.metric == TriggerSpec::Metric::kP99Latency) {
        value = Quantile(std::move(v), 0.99);
      } else {
        value = std::accumulate(v.begin(), v.end(), 0.0) / static_cast<double>(n);
      }
    } else {
      // Gauges: the mean over the window, so one spike does not fire it.
      value = 0;
      for (const auto& [ts, x] : st.values) value += x;
      value /= static_cast<double>(n);
    }
    bool holds = false;
    switch (s.op) {
      case TriggerSpec::Op::kGreater: holds = value > s.threshold; break;
      case TriggerSpec::Op::kGreaterEqual: holds = value >= s.threshold; break;
      case TriggerSpec::Op::kLess: holds = value < s.threshold; break;
      case TriggerSpec::Op::kLessEqual: holds = value <= s.threshold; break;
    }
    if (!holds) {
      st.armed = true;
      continue;
    }
    if (!st.armed) continue;
    // A value hovering at the threshold turns the expression false and true again within the
    // same window: a second firing then wrote mostly the same seconds (two files 17 ms apart).
    if (st.fired_at >= 0 && now - st.fired_at < s.window_ns) continue;
    st.armed = false;
    st.fired_at = now;
    static constexpr const char* kOps[] = {">", ">=", "<", "<="};
    fired.push_back({i, now, value,
                     fmt::format("{}={} {} {} over the last {} ({} values)", s.metric_name, FormatValue(s, value),
                                 kOps[static_cast<int>(s.op)], FormatValue(s, s.threshold),
                                 FormatDuration(s.window_ns), n)});
  }
  return fired;
}

}  // namespace cprof
