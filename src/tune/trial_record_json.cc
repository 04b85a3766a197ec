// Trial records <-> JSON texts: see trial_record_json.h.
#include "tune/trial_record_json.h"

#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cprof::tune {
namespace {

using nlohmann::json;

std::map<std::string, double> NumericFields(const json& j) {
  std::map<std::string, double> m;
  if (j.is_object())
    for (const auto& [k, v] : j.items())
      if (v.is_number()) m[k] = v.get<double>();
  return m;
}

}  // namespace

std::string CoordsJson(const Config& c) {
  json j = json::array();
  for (double v : c) j.push_back(std::isnan(v) ? json(nullptr) : json(v));
  return j.dump();
}

std::optional<Config> ParseCoords(const std::string& text, size_t n) {
  json j = json::parse(text, nullptr, false);
  if (!j.is_array() || j.size() != n) return std::nullopt;
  Config c;
  for (const json& v : j) c.push_back(v.is_number() ? v.get<double>() : std::nan(""));
  return c;
}

std::string MetricsJson(const std::map<std::string, double>& m) {
  json j = json::object();
  for (const auto& [k, v] : m) j[k] = std::isfinite(v) ? json(v) : json(nullptr);
  return j.dump();
}

std::map<std::string, double> ParseMetricsJson(const std::string& text) {
  return NumericFields(json::parse(text, nullptr, false));
}

TrialSummary Summarize(const TrialRecord& t) {
  TrialSummary s;
  s.number = t.number;
  json p = json::parse(t.params, nullptr, false);
  if (p.is_object())
    for (const auto& [k, v] : p.items()) s.params[k] = v.is_string() ? v.get<std::string>() : v.dump();
  s.state = t.state;
  s.metrics = ParseMetricsJson(t.metrics.empty() ? "{}" : t.metrics);
  json m = json::parse(t.measurements.empty() ? "[]" : t.measurements, nullptr, false);
  if (m.is_array())
    for (const json& e : m) s.measurements.push_back(NumericFields(e));
  s.reason = t.reason;
  s.sampler = t.sampler;
  s.seconds = t.finished_at > t.started_at ? t.finished_at - t.started_at : 0;
  return s;
}

Status CheckStoredTrial(const TrialRecord& t, size_t n_params) {
  auto bad = [&](const char* column, const std::string& text, const char* expected) {
    return InvalidInput(
        "trial {}: its stored {} ({}) is not {}: the study's database was changed outside cann-profiler; "
        "delete that trial's row or start another --study",
        t.number, column, text.size() > 60 ? text.substr(0, 57) + "..." : text, expected);
  };
  if (!ParseCoords(t.coords, n_params))
    return bad("coords", t.coords, fmt::format("an array of {} numbers or nulls", n_params).c_str());
  if (!json::parse(t.params, nullptr, false).is_object()) return bad("params", t.params, "a JSON object");
  if (t.state == TrialState::kComplete) {
    json m = json::parse(t.metrics, nullptr, false);
    if (!m.is_object() || m.empty()) return bad("metrics", t.metrics, "a JSON object of values");
    for (const auto& [k, v] : m.items())
      if (!v.is_number() && !v.is_null()) return bad("metrics", t.metrics, "a JSON object of numbers");
  }
  if (!t.measurements.empty() && !json::parse(t.measurements, nullptr, false).is_array())
    return bad("measurements", t.measurements, "a JSON array");
  return Status::Ok();
}

}  // namespace cprof::tune
