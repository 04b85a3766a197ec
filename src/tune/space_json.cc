// The JSON search spaces: a Kernel Tuner cache's `tune_params` and `restrictions`, a T4 space
// (`ConfigurationSpace`), or T4 results (each parameter's values are those its results hold).
#include <nlohmann/json.hpp>

#include "tune/expression.h"
#include "tune/kernel_tuner_json.h"
#include "tune/space_file.h"

namespace cprof::tune {
namespace {

using nlohmann::json;

// Numbers in increasing order are ordinal (sizes, counts); anything else is categorical.
ParamType InferType(const std::vector<Value>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    auto x = AsNumber(values[i]);
    if (!x) return ParamType::kCategorical;
    if (i > 0 && !(*AsNumber(values[i - 1]) < *x)) return ParamType::kCategorical;
  }
  return ParamType::kOrdinal;
}

StatusOr<SpaceFile> Finish(SpaceDefinition def, const std::string& origin, const char* format) {
  auto space = SearchSpace::Create(std::move(def));
  if (!space.ok()) return space.status().WithContext(origin);
  SpaceFile f;
  f.space = std::move(space).value();
  f.format = format;
  return f;
}

StatusOr<SpaceFile> SpaceFromT4(const json& j, const std::string& origin) {
  const json& cs = j["ConfigurationSpace"];
  if (!cs.is_object() || !cs.contains("TuningParameters") || !cs["TuningParameters"].is_array())
    return InvalidInput("{}: ConfigurationSpace.TuningParameters missing", origin);
  SpaceDefinition def;
  for (const json& tp : cs["TuningParameters"]) {
    Parameter p;
    if (!tp.contains("Name") || !tp["Name"].is_string())
      return InvalidInput("{}: a parameter has no Name", origin);
    p.name = tp["Name"].get<std::string>();
    json values = tp.value("Values", json());
    if (values.is_string()) values = json::parse(values.get<std::string>(), nullptr, false);
    if (!values.is_array() || values.empty())
      return InvalidInput("{}: parameter '{}': Values must be a list", origin, p.name);
    for (const json& v : values) {
      auto val = JsonValue(v);
      if (!val) return InvalidInput("{}: parameter '{}': unsupported value {}", origin, p.name, v.dump());
      p.values.push_back(*val);
    }
    p.type = InferType(p.values);
    if (tp.contains("Default")) p.default_value = JsonValue(tp["Default"]);
    def.params.push_back(std::move(p));
  }
  if (cs.contains("Conditions") && cs["Conditions"].is_array())
    for (size_t k = 0; k < cs["Conditions"].size(); ++k) {
      const json& c = cs["Conditions"][k];
      if (!c.contains("Expression") || !c["Expression"].is_string()) continue;
      def.constraints.push_back(c["Expression"].get<std::string>());
      def.constraint_where.push_back(fmt::format("ConfigurationSpace.Conditions[{}]", k));
    }
  return Finish(std::move(def), origin, "t4");
}

}  // namespace

StatusOr<SpaceFile> ParseSpaceJson(std::string_view text, const std::string& origin) {
  ASSIGN_OR_RETURN(const json j, ParseTunerJson(text, origin));
  if (j.contains("ConfigurationSpace")) return SpaceFromT4(j, origin);
  const bool t4_results = !j.contains("tune_params") && j.contains("results") && j["results"].is_array();
  if (!j.contains("tune_params") && !t4_results)
    return InvalidInput(
        "{}: JSON space needs 'tune_params' (Kernel Tuner), 'ConfigurationSpace' (T4) or 'results' (T4 "
        "results)",
        origin);
  // Only the parameter lists and restrictions: the records belong to the replay evaluator (T4
  // results name their values only in their records, which are read for them and not kept).
  ASSIGN_OR_RETURN(KernelTunerCache cache, KernelTunerCacheFromJson(j, origin, /*with_records=*/false));
  SpaceDefinition def;
  for (auto& [name, values] : cache.tune_params) {
    Parameter p;
    p.name = name;
    p.values = values;
    p.type = InferType(values);
    def.params.push_back(std::move(p));
  }
  // Kernel Tuner takes any Python in its restrictions. One ours cannot read is left out, with a
  // warning, rather than refusing the file: the cache itself holds only configurations that met
  // them, so in a replay the others are found absent, at no cost.
  auto resolve = [&](std::string_view name) -> std::optional<int> {
    for (size_t i = 0; i < cache.tune_params.size(); ++i)
      if (cache.tune_params[i].first == name) return static_cast<int>(i);
    return std::nullopt;
  };
  std::vector<std::string> warnings;
  for (size_t k = 0; k < cache.restrictions.size(); ++k) {
    StatusOr<Expression> e = Expression::Parse(cache.restrictions[k], resolve);
    if (!e.ok()) {
      warnings.push_back(
          fmt::format("{}: restrictions[{}] left out ({}): configurations it excluded may be tried", origin,
                      k, e.status().message()));
      continue;
    }
    def.constraints.push_back(cache.restrictions[k]);
    def.constraint_where.push_back(fmt::format("restrictions[{}]", k));
  }
  ASSIGN_OR_RETURN(SpaceFile f, Finish(std::move(def), origin, "kernel_tuner"));
  f.warnings = std::move(warnings);
  return f;
}
}  // namespace cprof::tune
