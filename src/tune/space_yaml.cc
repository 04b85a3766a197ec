// The YAML search-space reader (yaml-cpp), and LoadSpaceFile's choice of reader.
#include <fmt/ranges.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <iterator>
#include <map>

#include "base/byte_source.h"
#include "tune/rng.h"
#include "tune/space_file.h"
#include "tune/trial_runner.h"

namespace cprof::tune {
namespace {

// A YAML scalar as a Value: integers stay integers, then reals, then text.
Value ScalarValue(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() != "!") {  // unquoted scalars may be numbers; quoted ones stay strings
    try {
      size_t used = 0;
      long long i = std::stoll(s, &used, 10);
      if (used == s.size()) return Value{static_cast<int64_t>(i)};
    } catch (...) {
    }
    try {
      size_t used = 0;
      double d = std::stod(s, &used);
      if (used == s.size() && std::isfinite(d)) return Value{d};
    } catch (...) {
    }
  }
  return Value{s};
}

StatusOr<double> Number(const YAML::Node& n, const std::string& what) {
  if (!n || !n.IsScalar()) return InvalidInput("{}: expected a number", what);
  auto v = AsNumber(ScalarValue(n));
  if (!v) return InvalidInput("{}: '{}' is not a number", what, n.Scalar());
  return *v;
}

// A flag that is not `true`/`false` would otherwise surface as yaml-cpp's "bad conversion".
StatusOr<bool> Bool(const YAML::Node& n, const std::string& what) {
  bool b = false;
  if (!n.IsScalar() || !YAML::convert<bool>::decode(n, b))
    return InvalidInput("{}: must be true or false (got '{}')", what,
                        n.IsScalar() ? n.Scalar() : "a non-scalar");
  return b;
}

// The fields a parameter may have: a misspelt one (`deafult`) must not be ignored silently.
constexpr std::string_view kParameterFields[] = {"name", "type",    "low",    "high",      "step",
                                                 "log",  "default", "values", "condition", "fixes"};
constexpr std::string_view kTopLevelKeys[] = {"parameters", "constraints", "env"};

// A field given twice: yaml-cpp keeps both and n["low"] reads the first, so a second `low:` (or a
// second `constraints:` section) would be dropped without a word. `what` names the mapping
// ("parameter 'a'"), empty for the top level.
template <size_t N>
Status CheckKeys(const YAML::Node& map, const std::string_view (&known)[N], const std::string& origin,
                 const std::string& what) {
  const std::string where = what.empty() ? origin : fmt::format("{}: line {}: {}", origin, map.Mark().line + 1, what);
  std::vector<std::string> seen;
  for (const auto& kv : map) {
    const std::string key = kv.first.Scalar();
    if (std::find(seen.begin(), seen.end(), key) != seen.end())
      return InvalidInput("{}: field '{}' given twice (again on line {})", where, key, kv.first.Mark().line + 1);
    seen.push_back(key);
    if (std::find(std::begin(known), std::end(known), key) != std::end(known)) continue;
    std::string list;
    for (std::string_view k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    return InvalidInput("{}: line {}: {}unknown field '{}' (known: {})", origin, kv.first.Mark().line + 1,
                        what.empty() ? "" : what + ": ", key, list);
  }
  return Status::Ok();
}

// A scalar read as text; yaml-cpp's own conversion error says only "bad conversion".
StatusOr<std::string> Text(const YAML::Node& n, const std::string& what) {
  if (!n.IsScalar())
    return InvalidInput("{}: expected text, got {}", what, n.IsSequence() ? "a list" : n.IsMap() ? "a mapping" : "nothing");
  return n.Scalar();
}

// A number for an int or float parameter's default or fix: an int's must be a whole number (2.6
// was rounded to 3 without a word). Text stays text for Parameter::Check to name.
StatusOr<Value> ParameterValue(const Parameter& p, Value v, const std::string& what) {
  std::optional<double> x = AsNumber(v);
  if (!x) return v;
  if (p.type == ParamType::kInt) {
    if (std::trunc(*x) != *x) return InvalidInput("{}: {} is not an integer", what, FormatValue(v));
    if (std::fabs(*x) > kMaxExactInt) return InvalidInput("{}: {} is beyond +-2^53", what, FormatValue(v));
    return Value{static_cast<int64_t>(*x)};
  }
  if (p.type == ParamType::kFloat) return Value{*x};
  return v;
}

StatusOr<Parameter> ReadParameter(const std::string& name, const YAML::Node& n, std::string& condition,
                                  std::string& condition_where, const std::string& origin, SpaceFile& out) {
  Parameter p;
  p.name = name;
  std::string where = fmt::format("{}: line {}: parameter '{}'", origin, n.Mark().line + 1, name);
  if (!n.IsMap()) return InvalidInput("{}: expected a mapping of fields", where);
  RETURN_IF_ERROR(CheckKeys(n, kParameterFields, origin, fmt::format("parameter '{}'", name)));
  // An error in one field names that field's line (a parameter may span ten lines).
  auto at = [&](const char* field) {
    const YAML::Node& f = n[field];
    return fmt::format("{}: line {}: parameter '{}': {}", origin, (f ? f : n).Mark().line + 1, name, field);
  };
  std::string type = n["values"] ? "ordinal" : "";
  if (n["type"]) {
    ASSIGN_OR_RETURN(type, Text(n["type"], at("type")));
  }
  if (type == "int" || type == "integer") p.type = ParamType::kInt;
  else if (type == "float" || type == "real" || type == "double") p.type = ParamType::kFloat;
  else if (type == "categorical" || type == "choice") p.type = ParamType::kCategorical;
  else if (type == "ordinal" || type == "ordered") p.type = ParamType::kOrdinal;
  else return InvalidInput("{}: type must be int, float, categorical or ordinal (got '{}')", where, type);

  const bool numeric = p.type == ParamType::kInt || p.type == ParamType::kFloat;
  for (const char* field : {"low", "high", "step", "log", "values"})
    if (n[field] && numeric == (std::string_view(field) == "values"))
      return InvalidInput("{}: applies to {} parameters only, not to {}", at(field),
                          numeric ? "categorical and ordinal" : "int and float", ParamTypeName(p.type));
  if (numeric) {
    ASSIGN_OR_RETURN(p.low, Number(n["low"], at("low")));
    ASSIGN_OR_RETURN(p.high, Number(n["high"], at("high")));
    // An int bound read as a double would be rounded to 2^53 first and pass the check of its range.
    constexpr int64_t kLimit = int64_t{1} << 53;
    for (const char* field : {"low", "high"}) {
      const Value v = ScalarValue(n[field]);
      const auto* i = std::get_if<int64_t>(&v);
      if (p.type == ParamType::kInt && i && (*i > kLimit || *i < -kLimit))
        return InvalidInput("{}: {} is beyond +-2^53", at(field), *i);
    }
    if (n["step"]) {
      ASSIGN_OR_RETURN(p.step, Number(n["step"], at("step")));
    } else {
      p.step = p.type == ParamType::kInt ? 1 : 0;
    }
    if (n["log"]) {
      ASSIGN_OR_RETURN(p.log, Bool(n["log"], at("log")));
    }
  } else {
    const YAML::Node& vals = n["values"];
    if (!vals || !vals.IsSequence() || vals.size() == 0)
      return InvalidInput("{}: needs a non-empty list of values", where);
    for (const auto& v : vals) {
      if (!v.IsScalar()) return InvalidInput("{}: values must be scalars", at("values"));
      p.values.push_back(ScalarValue(v));
    }
  }
  if (n["default"]) {
    if (!n["default"].IsScalar()) return InvalidInput("{}: must be a scalar", at("default"));
    ASSIGN_OR_RETURN(p.default_value, ParameterValue(p, ScalarValue(n["default"]), at("default")));
  }
  if (n["condition"]) {
    ASSIGN_OR_RETURN(condition, Text(n["condition"], at("condition")));
    condition_where = fmt::format("line {}", n["condition"].Mark().line + 1);
  }
  // The default's own line when it is the default that is wrong.
  RETURN_IF_ERROR(p.Check().WithContext(
      fmt::format("{}: line {}", origin, (n["default"] ? n["default"] : n).Mark().line + 1)));
  if (const YAML::Node& fixes = n["fixes"]) {
    if (!fixes.IsMap()) return InvalidInput("{}: must map finding categories to values", at("fixes"));
    for (const auto& kv : fixes) {
      const std::string category = kv.first.Scalar();
      const std::string what = fmt::format("{}: line {}: parameter '{}': fixes.{}", origin,
                                           kv.second.Mark().line + 1, name, category);
      if (!kv.second.IsScalar()) return InvalidInput("{} must be a scalar", what);
      ASSIGN_OR_RETURN(Value v, ParameterValue(p, ScalarValue(kv.second), what));
      // A fix the space cannot take would only be noticed when --from_diagnosis drops it.
      if (!p.CoordOf(v)) return InvalidInput("{}: {} is not one of its values", what, FormatValue(v));
      out.fixes[category][name] = v;
      out.fix_where.emplace(category, fmt::format("line {}", kv.first.Mark().line + 1));
    }
  }
  return p;
}

// The YAML's parameters, constraints and env into `def` and `out` (env_lines: the line of each of
// out->env's entries).
Status ReadYamlSpace(const YAML::Node& root, const std::string& origin, SpaceDefinition& def, SpaceFile& out,
                     std::vector<int>& env_lines) {
  try {
    RETURN_IF_ERROR(CheckKeys(root, kTopLevelKeys, origin, ""));
    const YAML::Node& params = root["parameters"];
    auto add = [&](const std::string& name, const YAML::Node& n) -> Status {
      // Caught here, where the line is known: SearchSpace would name the parameter only.
      if (std::any_of(def.params.begin(), def.params.end(), [&](const Parameter& p) { return p.name == name; }))
        return InvalidInput("{}: line {}: parameter '{}' defined twice", origin, n.Mark().line + 1, name);
      std::string condition, condition_where;
      ASSIGN_OR_RETURN(Parameter p, ReadParameter(name, n, condition, condition_where, origin, out));
      def.params.push_back(std::move(p));
      def.conditions.push_back(std::move(condition));
      def.condition_where.push_back(std::move(condition_where));
      return Status::Ok();
    };
    if (params.IsSequence()) {
      for (const auto& n : params) {
        if (!n.IsMap() || !n["name"])
          return InvalidInput("{}: line {}: every parameter needs a name", origin, n.Mark().line + 1);
        ASSIGN_OR_RETURN(std::string name,
                         Text(n["name"], fmt::format("{}: line {}: name", origin, n["name"].Mark().line + 1)));
        RETURN_IF_ERROR(add(name, n));
      }
    } else if (params.IsMap()) {
      for (const auto& kv : params) {
        // The key names the parameter; a `name:` field that says otherwise was ignored.
        if (kv.second.IsMap() && kv.second["name"] &&
            (!kv.second["name"].IsScalar() || kv.second["name"].Scalar() != kv.first.Scalar()))
          return InvalidInput("{}: line {}: parameter '{}': name '{}' differs from its key", origin,
                              kv.second["name"].Mark().line + 1, kv.first.Scalar(),
                              kv.second["name"].IsScalar() ? kv.second["name"].Scalar() : "(not text)");
        RETURN_IF_ERROR(add(kv.first.Scalar(), kv.second));
      }
    } else {
      return InvalidInput("{}: line {}: 'parameters' must be a list or a mapping", origin, params.Mark().line + 1);
    }
    if (const YAML::Node& cons = root["constraints"]) {
      if (!cons.IsSequence())
        return InvalidInput("{}: line {}: 'constraints' must be a list of expressions", origin, cons.Mark().line + 1);
      for (const auto& c : cons) {
        ASSIGN_OR_RETURN(std::string text,
                         Text(c, fmt::format("{}: line {}: constraint", origin, c.Mark().line + 1)));
        def.constraints.push_back(std::move(text));
        def.constraint_where.push_back(fmt::format("line {}", c.Mark().line + 1));
      }
    }
    if (const YAML::Node& env = root["env"]) {
      if (!env.IsMap()) return InvalidInput("{}: line {}: 'env' must be a mapping", origin, env.Mark().line + 1);
      for (const auto& kv : env) {
        // The name becomes NAME=VALUE in the child's environment: "A=B" would set A to "B=...".
        const std::string& key = kv.first.Scalar();
        if (key.empty() || key.find('=') != std::string::npos || key.find('\0') != std::string::npos || !kv.first.IsScalar())
          return InvalidInput("{}: line {}: env: '{}' is not a variable name (no '=', not empty)", origin,
                              kv.first.Mark().line + 1, key);
        if (std::any_of(out.env.begin(), out.env.end(), [&](const auto& e) { return e.first == kv.first.Scalar(); }))
          return InvalidInput("{}: line {}: env.{} given twice", origin, kv.first.Mark().line + 1, kv.first.Scalar());
        const std::string what = fmt::format("{}: line {}: env.{}", origin, kv.second.Mark().line + 1, kv.first.Scalar());
        ASSIGN_OR_RETURN(std::string value, Text(kv.second, what));
        out.env.emplace_back(kv.first.Scalar(), std::move(value));
        env_lines.push_back(kv.second.Mark().line + 1);
      }
    }
  } catch (const YAML::Exception& e) {
    return InvalidInput("{}: line {}: {}", origin, e.mark.line + 1, e.msg);
  }
  return Status::Ok();
}

// Defaults that break a constraint are an error: the study would run without its baseline (no
// default trial, no improvement over the default) and say nothing. Some defaults and not all, a
// warning.
Status CheckDefaults(SpaceFile& out, const std::vector<std::string>& constraint_where,
                     const std::string& origin) {
  if (out.space.DefaultConfig()) return Status::Ok();
  std::map<std::string, Value> defaults;
  for (const Parameter& p : out.space.params())
    if (p.default_value) defaults[p.name] = *p.default_value;
  StatusOr<Config> d = out.space.FromValues(defaults);
  bool complete = d.ok();
  for (size_t i = 0; complete && i < out.space.size(); ++i)
    complete = std::isnan((*d)[i]) || out.space.param(i).default_value.has_value();
  if (complete) {
    const std::vector<Value> values = out.space.Values(*d);
    for (size_t k = 0; k < out.space.constraints().size(); ++k) {
      const Expression& e = out.space.constraints()[k];
      StatusOr<bool> holds = out.space.EvaluateConstraint(e, values);
      if (holds.ok() && *holds) continue;
      std::string named;
      for (const auto& [name, v] : out.space.Named(*d)) named += (named.empty() ? "" : " ") + name + "=" + v;
      return InvalidInput("{}: {}: the default configuration ({}) breaks the constraint \"{}\"", origin,
                          k < constraint_where.size() ? constraint_where[k] : "constraints", named, e.text());
    }
  } else if (!defaults.empty() && d.ok()) {
    // Some defaults and not all: no default configuration runs first, and the study has no
    // baseline to compare with. It said nothing.
    std::vector<std::string> missing;
    for (size_t i = 0; i < out.space.size(); ++i)
      if (!std::isnan((*d)[i]) && !out.space.param(i).default_value)
        missing.push_back(out.space.param(i).name);
    out.warnings.push_back(
        fmt::format("{}: {} {} no default: the default configuration (the baseline that runs first and that "
                    "the result is "
                    "compared with) needs one for every parameter",
                    origin, fmt::join(missing, ", "), missing.size() == 1 ? "has" : "have"));
  }
  return Status::Ok();
}

// A condition that holds in no configuration (`opt == 'sdg'` where opt has no value 'sdg') would
// leave its parameter out of every trial without a word. Exact over an enumerable space; otherwise
// over 4096 uniform draws (seeded: the same file always loads the same way).
Status CheckConditionsHold(const SpaceFile& out, const std::vector<std::string>& conditions,
                           const std::vector<std::string>& condition_where, const std::string& origin) {
  std::vector<Config> configs;
  const std::vector<Config>* all = out.space.Enumerated();
  if (!all && out.space.has_conditions()) {
    Rng rng(0x5ace);
    for (int k = 0; k < 4096; ++k)
      configs.push_back(out.space.Canonicalize(out.space.SampleUniform(rng), &rng));
    all = &configs;
  }
  for (size_t i = 0; all && !all->empty() && i < out.space.size() && i < conditions.size(); ++i) {
    if (conditions[i].empty()) continue;
    const bool ever =
        std::any_of(all->begin(), all->end(), [i](const Config& c) { return !std::isnan(c[i]); });
    if (!ever)
      return InvalidInput("{}: {}: parameter '{}': its condition \"{}\" holds in no configuration of the space",
                          origin, i < condition_where.size() ? condition_where[i] : "parameters",
                          out.space.param(i).name, conditions[i]);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<SpaceFile> ParseSpaceYaml(std::string_view text, const std::string& origin) {
  YAML::Node root;
  try {
    // A second document (after `---`) would be dropped without a word.
    std::vector<YAML::Node> docs = YAML::LoadAll(std::string(text));
    for (size_t d = 1; d < docs.size(); ++d)
      if (!docs[d].IsNull())
        return InvalidInput("{}: line {}: a second YAML document; a space file holds one", origin,
                            docs[d].Mark().line + 1);
    if (!docs.empty()) root = docs[0];
  } catch (const YAML::Exception& e) {
    return InvalidInput("{}: line {}, column {}: {}", origin, e.mark.line + 1, e.mark.column + 1, e.msg);
  }
  if (!root.IsMap() || !root["parameters"])
    return InvalidInput("{}: expected a mapping with 'parameters'", origin);
  SpaceDefinition def;
  SpaceFile out{};
  std::vector<int> env_lines;  // of out.env's entries
  RETURN_IF_ERROR(ReadYamlSpace(root, origin, def, out, env_lines));
  const std::vector<std::string> conditions = def.conditions, condition_where = def.condition_where;
  const std::vector<std::string> constraint_where = def.constraint_where;
  auto space = SearchSpace::Create(std::move(def));
  if (!space.ok()) return space.status().WithContext(origin);
  out.space = std::move(space).value();
  // `constraints: [5]` or `[true]` reads no parameter: it holds everywhere or nowhere, and is
  // surely not what was meant.
  for (size_t k = 0; k < out.space.constraints().size(); ++k)
    if (out.space.constraints()[k].slots().empty())
      return InvalidInput("{}: {}: constraint \"{}\" names no parameter", origin,
                          k < constraint_where.size() ? constraint_where[k] : "?",
                          out.space.constraints()[k].text());
  // env templates checked here, where their line is known (the trial runner would name neither
  // the file nor the line).
  for (size_t k = 0; k < out.env.size(); ++k)
    RETURN_IF_ERROR(
        CheckPlaceholders(out.env[k].second, out.space,
                          fmt::format("{}: line {}: env.{}", origin, env_lines[k], out.env[k].first)));
  RETURN_IF_ERROR(CheckDefaults(out, constraint_where, origin));
  RETURN_IF_ERROR(CheckConditionsHold(out, conditions, condition_where, origin));
  out.format = "yaml";
  return out;
}

StatusOr<SpaceFile> LoadSpaceFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadWholeFile(path));
  size_t first = text.find_first_not_of(" \t\r\n");
  if (first != std::string::npos && text[first] == '{') {
    // JSON (also valid YAML, but Kernel Tuner and T4 files have their own layouts).
    auto json = ParseSpaceJson(text, path);
    if (json.ok() || text.find("\"parameters\"") == std::string::npos) return json;
  }
  return ParseSpaceYaml(text, path);
}

}  // namespace cprof::tune
