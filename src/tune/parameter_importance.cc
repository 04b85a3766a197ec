// Parameter importance as one-way ANOVA shares: see parameter_importance.h.
#include "tune/parameter_importance.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <set>

namespace cprof::tune {
namespace {

constexpr size_t kMaxLevels = 8;

std::optional<double> AsNumber(const std::string& s) {
  double v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
  return v;
}

// The level of each trial for one parameter: its value, or its quantile bin when numeric with
// many distinct values. An empty value (the parameter inactive in that trial: its condition did
// not hold) is a level of its own, and the active values are binned as if it were not there: a
// conditional float used to count as categorical, each value a level, which drove its share
// toward 1 as trials grew (0.34 for one that did nothing, 40 trials).
std::vector<std::string> Levels(const std::vector<std::string>& values) {
  std::set<std::string> distinct(values.begin(), values.end());
  if (distinct.size() <= kMaxLevels) return values;
  std::vector<double> nums;
  for (const std::string& v : values) {
    if (v.empty()) continue;
    std::optional<double> x = AsNumber(v);
    if (!x) return values;  // categorical with many values: each is a level
    nums.push_back(*x);
  }
  std::vector<double> sorted = nums;
  std::sort(sorted.begin(), sorted.end());
  std::vector<double> edges;  // upper bounds of bins 0..kMaxLevels-2
  for (size_t b = 1; b < kMaxLevels; ++b) edges.push_back(sorted[b * sorted.size() / kMaxLevels]);
  std::vector<std::string> out;
  for (const std::string& v : values) {
    if (v.empty()) {
      out.emplace_back();
      continue;
    }
    const double x = *AsNumber(v);
    out.push_back(std::to_string(std::upper_bound(edges.begin(), edges.end(), x) - edges.begin()));
  }
  return out;
}

}  // namespace

std::vector<ParameterImportance> ParameterImportances(const std::vector<TrialSummary>& trials,
                                                      const std::string& objective) {
  std::vector<const TrialSummary*> done;
  std::vector<double> y;
  for (const TrialSummary& t : trials) {
    if (t.state != TrialState::kComplete) continue;
    auto it = t.metrics.find(objective);
    if (it == t.metrics.end() || !std::isfinite(it->second)) continue;
    done.push_back(&t);
    y.push_back(it->second);
  }
  if (y.size() < 3) return {};
  if (std::all_of(y.begin(), y.end(), [](double v) { return v > 0; }))
    for (double& v : y) v = std::log(v);
  double mean = 0;
  for (double v : y) mean += v;
  mean /= static_cast<double>(y.size());
  double total = 0;
  for (double v : y) total += (v - mean) * (v - mean);

  std::set<std::string> names;
  for (const TrialSummary* t : done)
    for (const auto& [k, v] : t->params) names.insert(k);
  std::vector<ParameterImportance> out;
  double sum = 0;
  for (const std::string& name : names) {
    std::vector<std::string> values;
    for (const TrialSummary* t : done) {
      auto it = t->params.find(name);
      values.push_back(it == t->params.end() ? std::string() : it->second);  // absent (conditional): its own level
    }
    std::vector<std::string> levels = Levels(values);
    std::map<std::string, std::pair<double, int>> groups;  // level -> (sum, count)
    for (size_t i = 0; i < y.size(); ++i) {
      auto& g = groups[levels[i]];
      g.first += y[i];
      g.second += 1;
    }
    double between = 0;
    for (const auto& [level, g] : groups) {
      const double m = g.first / g.second;
      between += g.second * (m - mean) * (m - mean);
    }
    ParameterImportance p;
    p.name = name;
    p.levels = static_cast<int>(groups.size());
    p.eta_squared = total > 0 ? std::clamp(between / total, 0.0, 1.0) : 0;
    // eta^2 of a parameter that does nothing is (levels - 1) / (trials - 1) by chance alone: one
    // of 8 values with no effect took 0.28 of 15 trials, more than one worth 0-8 ms. The share
    // is of epsilon^2, less the variance its levels explain by chance: (between - (k - 1) *
    // within / (N - k)) / total, at least 0; none when every trial is a level of its own.
    const double k = static_cast<double>(groups.size()), n = static_cast<double>(y.size());
    p.epsilon_squared =
        total > 0 && n > k ? std::clamp((between - (k - 1) * (total - between) / (n - k)) / total, 0.0, 1.0) : 0;
    sum += p.epsilon_squared;
    out.push_back(p);
  }
  for (ParameterImportance& p : out) p.share = sum > 0 ? p.epsilon_squared / sum : 0;
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.share > b.share; });
  return out;
}

}  // namespace cprof::tune
