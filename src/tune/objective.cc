// Objective specs and Pareto dominance.
#include "tune/objective.h"

#include <cmath>

namespace cprof::tune {

StatusOr<std::vector<ObjectiveSpec>> ParseObjectives(const std::string& text, const std::string& fallback) {
  std::vector<ObjectiveSpec> out;
  if (text.empty()) {
    if (fallback.empty()) return out;  // the evaluator's first reported metric decides later
    out.push_back({fallback, false});
    return out;
  }
  size_t start = 0;
  while (start <= text.size()) {
    // Objectives are separated by commas outside parentheses: `mean(a,b)` is one span name.
    size_t end = start;
    for (int depth = 0; end < text.size() && (depth > 0 || text[end] != ','); ++end)
      depth += text[end] == '(' ? 1 : text[end] == ')' ? -1 : 0;
    std::string item = text.substr(start, end - start);
    start = end + 1;
    while (!item.empty() && item.front() == ' ') item.erase(item.begin());
    while (!item.empty() && item.back() == ' ') item.pop_back();
    if (item.empty()) continue;
    ObjectiveSpec spec;
    // The direction follows the last ':' outside parentheses (`mean(aten::mm):min`).
    size_t colon = item.rfind(':');
    if (size_t close = item.rfind(')'); close != std::string::npos && colon != std::string::npos && colon < close)
      colon = std::string::npos;
    spec.name = item.substr(0, colon);
    if (colon != std::string::npos) {
      spec.direction_given = true;
      std::string dir = item.substr(colon + 1);
      if (dir == "max" || dir == "maximize") spec.maximize = true;
      else if (dir != "min" && dir != "minimize")
        return InvalidInput("objective '{}': direction must be min or max, not '{}'", item, dir);
    }
    if (spec.name.empty()) return InvalidInput("objective '{}': no metric name", item);
    for (const ObjectiveSpec& o : out)
      if (o.name == spec.name) return InvalidInput("objective '{}' given twice", spec.name);
    out.push_back(spec);
  }
  if (out.empty()) return InvalidInput("objectives '{}': none named", text);
  return out;
}

std::string FormatObjectives(const std::vector<ObjectiveSpec>& objs) {
  std::string s;
  for (const ObjectiveSpec& o : objs) {
    if (!s.empty()) s += ',';
    s += o.name + (o.maximize ? ":max" : ":min");
  }
  return s;
}

std::optional<std::vector<double>> Minimized(const std::vector<ObjectiveSpec>& objs,
                                             const std::map<std::string, double>& metrics) {
  std::vector<double> out;
  for (const ObjectiveSpec& o : objs) {
    auto it = metrics.find(o.name);
    if (it == metrics.end() || !std::isfinite(it->second)) return std::nullopt;
    out.push_back(o.maximize ? -it->second : it->second);
  }
  return out;
}

std::vector<size_t> ParetoFront(const std::vector<std::vector<double>>& points) {
  std::vector<size_t> front;
  for (size_t i = 0; i < points.size(); ++i) {
    bool dominated = false;
    for (size_t j = 0; j < points.size() && !dominated; ++j) {
      if (i == j) continue;
      bool no_worse = true, better = false;
      for (size_t k = 0; k < points[i].size(); ++k) {
        if (points[j][k] > points[i][k]) no_worse = false;
        if (points[j][k] < points[i][k]) better = true;
      }
      // Equal points: keep the earlier one only.
      dominated = no_worse && (better || j < i);
    }
    if (!dominated) front.push_back(i);
  }
  return front;
}

}  // namespace cprof::tune
