// Kernel Tuner cache files and T4 results (nlohmann-json: they are tens of MB at most).
#include "tune/kernel_tuner_cache.h"

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>

#include "base/byte_source.h"
#include "tune/kernel_tuner_json.h"

namespace cprof::tune {
namespace {

using nlohmann::json;

constexpr double kErrorTime = 1e20;  // Kernel Tuner's old mark of a failed configuration

}  // namespace

std::optional<Value> JsonValue(const json& j) {
  if (j.is_number_integer()) return Value{j.get<int64_t>()};
  if (j.is_number_float()) return Value{j.get<double>()};
  if (j.is_boolean()) return Value{static_cast<int64_t>(j.get<bool>() ? 1 : 0)};
  if (j.is_string()) return Value{j.get<std::string>()};
  return std::nullopt;
}

namespace {

// Python's json module writes NaN, Infinity and -Infinity (not JSON) for such floats, as a cache
// may hold for a derived metric of a failed configuration; read as null outside strings.
std::string NonFiniteAsNull(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      out += c;
      if (c == '\\' && i + 1 < text.size()) out += text[++i];
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    bool replaced = false;
    for (std::string_view token : {"-Infinity", "Infinity", "NaN"})
      if (text.substr(i, token.size()) == token) {
        out += "null";
        i += token.size() - 1;
        replaced = true;
        break;
      }
    if (!replaced) out += c;
  }
  return out;
}

}  // namespace

StatusOr<json> ParseTunerJson(std::string_view given, const std::string& origin) {
  std::string sanitized;
  std::string_view text = given;
  json j = json::parse(text.begin(), text.end(), nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() && (given.find("NaN") != std::string_view::npos || given.find("Infinity") != std::string_view::npos)) {
    sanitized = NonFiniteAsNull(given);
    text = sanitized;
    j = json::parse(text.begin(), text.end(), nullptr, false);
  }
  if (j.is_discarded()) {
    // Kernel Tuner writes its cache incrementally; an unfinished file lacks the closing braces.
    std::string fixed(text);
    while (!fixed.empty() && (fixed.back() == '\n' || fixed.back() == ' ' || fixed.back() == ',')) fixed.pop_back();
    fixed += "}}";
    j = json::parse(fixed, nullptr, false);
  }
  if (j.is_discarded()) {
    // Where and why, from the text as given ("parse error at line 1, column 1: ...").
    std::string why = "invalid JSON";
    try {
      const json ignored = json::parse(text.begin(), text.end());
    } catch (const json::parse_error& e) {
      why = e.what();
      if (size_t at = why.find("parse error"); at != std::string::npos) why = why.substr(at);
    }
    return InvalidInput("{}: not a Kernel Tuner cache or JSON space: {}", origin, why);
  }
  if (!j.is_object()) return InvalidInput("{}: not a JSON object", origin);
  return j;
}

namespace {

// The failure an error string in a record names; Kernel Tuner wrote an empty one for an invalid
// configuration.
std::string FailureReason(const json& error) {
  return error.get<std::string>().empty() ? "InvalidConfig" : error.get<std::string>();
}

// A record's measurement from its `time` (a number, or an error string) and `times` (the runs).
void SetMeasurement(const json& time, const json& times, KernelTunerRecord& r) {
  if (times.is_array())
    for (const json& t : times)
      if (t.is_number()) r.times.push_back(t.get<double>());
  if (time.is_string()) {
    r.error = FailureReason(time);
  } else if (time.is_number() && !(time.get<double>() >= 0 && time.get<double>() < kErrorTime)) {
    // Kernel Tuner before its error strings marked a failed configuration with a time of 1e20;
    // a negative time is no measurement either (autotuning_methodology reads both so).
    r.error = fmt::format("InvalidConfig (time {})", time.get<double>());
  } else if (!r.times.empty()) {
    double sum = 0;
    for (double t : r.times) sum += t;
    r.objective = sum / static_cast<double>(r.times.size());
  } else if (time.is_number() && std::isfinite(time.get<double>())) {
    r.objective = time.get<double>();
  } else {
    r.error = "no measurement";
  }
}

// A record's measurement of an objective other than time: `value`, its number. Kernel Tuner writes
// an error string in `time` (and, in some versions, in the objective too) for a configuration that
// failed; a rate or a score may be 0 or negative, so only a non-finite number is no measurement.
void SetMetricMeasurement(const json& time, const json& value, const std::string& objective,
                          KernelTunerRecord& r) {
  if (time.is_string()) {
    r.error = FailureReason(time);
  } else if (time.is_number() && time.get<double>() >= kErrorTime) {
    r.error = fmt::format("InvalidConfig (time {})", time.get<double>());
  } else if (value.is_string()) {
    r.error = FailureReason(value);
  } else if (value.is_number() && std::isfinite(value.get<double>())) {
    r.objective = value.get<double>();
  } else {
    r.error = fmt::format("no measurement of '{}'", objective);
  }
}

// A T4 results file (Kernel Tuner's `store_output_file`: {"results": [{"configuration": {...},
// "times": {"runtimes": [...]}, "measurements": [{"name": "time", "value": t}], "invalidity":
// "correct" | "compile" | "runtime" | "timeout" | "correctness" | "constraints"}]}) read as a
// cache. It names no parameter lists: each parameter's values are those its results hold (numbers
// ascending, others in the order first seen; in key order, not the file's, as nlohmann-json reads
// objects). A result marked "constraints" is absent, as one its restrictions excluded is from a
// cache (Kernel Tuner marks other invalid configurations so too, which a cache records as failed);
// one that failed otherwise is a failure named after Kernel Tuner's error strings.
StatusOr<KernelTunerCache> FromT4Results(const json& j, const std::string& origin, bool with_records) {
  const json& results = j["results"];
  KernelTunerCache out;
  for (size_t i = 0; i < results.size(); ++i) {
    const json& res = results[i];
    if (!res.is_object() || !res.contains("configuration") || !res["configuration"].is_object())
      return InvalidInput("{}: results[{}] has no 'configuration' object", origin, i);
    const json& config = res["configuration"];
    if (out.tune_params.empty())
      for (const auto& [name, v] : config.items()) out.tune_params.emplace_back(name, std::vector<Value>{});
    if (config.size() != out.tune_params.size())
      return InvalidInput("{}: results[{}] has {} parameters, results[0] {}", origin, i, config.size(),
                          out.tune_params.size());
    KernelTunerRecord r;
    for (auto& [name, values] : out.tune_params) {
      std::optional<Value> v = config.contains(name) ? JsonValue(config[name]) : std::nullopt;
      if (!v) return InvalidInput("{}: results[{}] lacks parameter '{}' or holds no number or text", origin, i, name);
      // 2 and 2.0 are one value, as the expression language and the records' keys see them.
      if (std::none_of(values.begin(), values.end(), [&](const Value& x) { return ValuesEqual(x, *v); }))
        values.push_back(*v);
      r.values.push_back(*v);
    }
    const json& given = res.contains("invalidity") ? res["invalidity"] : json("correct");
    const std::string invalidity = given.is_string() ? given.get<std::string>() : given.dump();
    if (!with_records || invalidity == "constraints") continue;
    // The objective a result names (`objectives`, as Kernel Tuner's conversion of a cache writes
    // it), else time; the first result's names the file's.
    if (out.records.empty() && res.contains("objectives") && res["objectives"].is_array() &&
        !res["objectives"].empty() && res["objectives"][0].is_string() &&
        !res["objectives"][0].get<std::string>().empty()) {
      out.objective = res["objectives"][0].get<std::string>();
      out.higher_is_better = HigherIsBetter(out.objective);
    }
    json value;  // the first measurement of the objective
    if (res.contains("measurements") && res["measurements"].is_array())
      for (const json& m : res["measurements"])
        if (m.is_object() && m.contains("name") && m["name"] == out.objective && m.contains("value")) {
          value = m["value"];
          break;
        }
    const json times = res.contains("times") && res["times"].is_object() && res["times"].contains("runtimes")
                           ? res["times"]["runtimes"]
                           : json();
    // Kernel Tuner's conversion of a cache marks every result "correct", a failed one too: its
    // measurement is then the error string (CompilationFailedConfig), read as a failure below.
    json error;
    if (invalidity == "compile")
      error = "CompilationFailedConfig";
    else if (invalidity == "runtime")
      error = "RuntimeFailedConfig";
    else if (invalidity == "timeout")
      error = "TimeoutConfig";
    else if (invalidity != "correct")
      error = "InvalidConfig (" + invalidity + ")";
    if (out.objective == "time")
      SetMeasurement(error.is_null() ? value : error, times, r);
    else
      SetMetricMeasurement(error, value, out.objective, r);
    out.records.push_back(std::move(r));
  }
  if (out.tune_params.empty()) return InvalidInput("{}: 'results' is empty: no parameters to read", origin);
  for (auto& [name, values] : out.tune_params)
    if (std::all_of(values.begin(), values.end(), [](const Value& v) { return AsNumber(v).has_value(); }))
      std::sort(values.begin(), values.end(), [](const Value& a, const Value& b) { return *AsNumber(a) < *AsNumber(b); });
  return out;
}

}  // namespace

std::optional<bool> HigherIsBetter(std::string_view objective) {
  // Kernel Tuner's objective_default_map (kernel_tuner/integration.py).
  static constexpr std::pair<std::string_view, bool> kKnown[] = {
      {"time", false}, {"energy", false},  {"GFLOP/s", true},  {"TFLOP/s", true}, {"GB/s", true},
      {"TB/s", true},  {"GFLOPS/W", true}, {"TFLOPS/W", true}, {"GFLOP/J", true}, {"TFLOP/J", true}};
  for (const auto& [name, higher] : kKnown)
    if (name == objective) return higher;
  return std::nullopt;
}

StatusOr<KernelTunerCache> ParseKernelTunerCache(std::string_view text, const std::string& origin,
                                                 bool with_records) {
  ASSIGN_OR_RETURN(json j, ParseTunerJson(text, origin));
  return KernelTunerCacheFromJson(j, origin, with_records);
}

StatusOr<KernelTunerCache> KernelTunerCacheFromJson(const json& j, const std::string& origin,
                                                    bool with_records) {
  if (!j.contains("tune_params") && j.contains("results") && j["results"].is_array())
    return FromT4Results(j, origin, with_records);
  if (!j.contains("tune_params") || !j["tune_params"].is_object())
    return InvalidInput("{}: no 'tune_params' (not a Kernel Tuner cache file nor T4 results)", origin);
  KernelTunerCache out;
  std::vector<std::string> keys;
  if (j.contains("tune_params_keys") && j["tune_params_keys"].is_array()) {
    for (const json& k : j["tune_params_keys"]) {
      if (!k.is_string())
        return InvalidInput("{}: tune_params_keys: {} is not a parameter name (a string)", origin, k.dump());
      keys.push_back(k.get<std::string>());
    }
  } else {
    for (const auto& [k, v] : j["tune_params"].items()) keys.push_back(k);
  }
  for (const std::string& k : keys) {
    if (!j["tune_params"].contains(k) || !j["tune_params"][k].is_array())
      return InvalidInput("{}: tune_params has no list for '{}'", origin, k);
    std::vector<Value> values;
    for (const json& v : j["tune_params"][k]) {
      auto val = JsonValue(v);
      if (!val) return InvalidInput("{}: tune_params['{}']: unsupported value {}", origin, k, v.dump());
      values.push_back(*val);
    }
    out.tune_params.emplace_back(k, std::move(values));
  }
  if (j.contains("restrictions")) {
    const json& r = j["restrictions"];
    if (r.is_string()) out.restrictions.push_back(r.get<std::string>());
    else if (r.is_array())
      for (const json& e : r) {
        if (!e.is_string()) return InvalidInput("{}: restrictions must be expression strings", origin);
        out.restrictions.push_back(e.get<std::string>());
      }
  }
  if (!with_records) return out;
  // A list (a multi-objective study's cache) names its first objective first; a replay optimizes
  // that one, in the first direction listed.
  auto first = [](const json& v) -> const json& { return v.is_array() && !v.empty() ? v[0] : v; };
  if (j.contains("objective") && !j["objective"].is_null()) {
    const json& name = first(j["objective"]);
    if (!name.is_string() || name.get<std::string>().empty())
      return InvalidInput("{}: 'objective' must name a metric (a string, or a list of them), not {}", origin,
                          j["objective"].dump());
    out.objective = name.get<std::string>();
  }
  const json& higher =
      j.contains("objective_higher_is_better") ? first(j["objective_higher_is_better"]) : json();
  out.higher_is_better =
      higher.is_boolean() ? std::optional<bool>(higher.get<bool>()) : HigherIsBetter(out.objective);
  if (!j.contains("cache") || !j["cache"].is_object()) return InvalidInput("{}: no 'cache' records", origin);
  out.records.reserve(j["cache"].size());
  for (const auto& [key, rec] : j["cache"].items()) {
    if (!rec.is_object()) return InvalidInput("{}: cache['{}'] is not an object", origin, key);
    KernelTunerRecord r;
    for (const std::string& k : keys) {
      std::optional<Value> v;
      if (rec.contains(k)) v = JsonValue(rec[k]);
      if (!v) return InvalidInput("{}: cache['{}'] lacks parameter '{}'", origin, key, k);
      r.values.push_back(*v);
    }
    const json none;
    const json& time = rec.contains("time") ? rec["time"] : none;
    if (out.objective == "time")
      SetMeasurement(time, rec.contains("times") ? rec["times"] : none, r);
    else
      SetMetricMeasurement(time, rec.contains(out.objective) ? rec[out.objective] : none, out.objective, r);
    out.records.push_back(std::move(r));
  }
  return out;
}

StatusOr<KernelTunerCache> ReadKernelTunerCache(const std::string& path, bool with_records) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  return ParseKernelTunerCache(text, path, with_records);
}

}  // namespace cprof::tune
