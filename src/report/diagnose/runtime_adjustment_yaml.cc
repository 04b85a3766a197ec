// runtime_adjustment.yaml: the writer and reader (runtime_adjustment_yaml.h).
#include "report/diagnose/runtime_adjustment_yaml.h"

#include <cerrno>
#include <cstdlib>

#include <yaml-cpp/yaml.h>

#include "report/diagnose/diagnosis_json.h"
#include "report/diagnose/diagnosis_yaml.h"

namespace cprof {
namespace {

constexpr RuntimeSection kSections[] = {RuntimeSection::kThreads, RuntimeSection::kEnv, RuntimeSection::kAllocator,
                                        RuntimeSection::kBatch, RuntimeSection::kFramework};

nlohmann::ordered_json TypedValue(const RuntimeSetting& s) {
  if (s.section == RuntimeSection::kEnv || s.section == RuntimeSection::kAllocator) return s.value;
  if (s.value == "true") return true;
  if (s.value == "false") return false;
  if (!s.value.empty()) {
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(s.value.c_str(), &end, 10);
    if (*end == '\0' && errno == 0) return v;
  }
  return s.value;
}

}  // namespace

nlohmann::ordered_json RuntimeAdjustmentToJson(const RuntimeAdjustment& a, int schema_version) {
  nlohmann::ordered_json doc;
  doc["schema_version"] = schema_version;
  doc["kind"] = "runtime_adjustment";
  doc["producer"] = a.producer;
  doc["source"] = {{"trace", a.trace},
                   {"content_hash", a.content_hash ? FormatContentHash(a.content_hash) : std::string()},
                   {"diagnosis", a.diagnosis}};
  doc["device"] = a.device;
  for (RuntimeSection sec : kSections) {
    nlohmann::ordered_json section = nlohmann::ordered_json::object();
    for (const RuntimeSetting& s : a.settings)
      if (s.section == sec) section[s.name] = {{"value", TypedValue(s)}, {"reason", s.reason}};
    doc[std::string(RuntimeSectionId(sec))] = std::move(section);
  }
  doc["notes"] = a.notes;
  return doc;
}

std::string RuntimeAdjustmentToYaml(const RuntimeAdjustment& a, int schema_version) {
  return JsonToYaml(RuntimeAdjustmentToJson(a, schema_version));
}

StatusOr<RuntimeAdjustment> ParseRuntimeAdjustment(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return InvalidInput("{}: not valid YAML or JSON: line {}: {}", source, e.mark.line + 1, e.msg);
  }
  if (!root.IsMap() || !root["kind"] || root["kind"].as<std::string>("") != "runtime_adjustment")
    return InvalidInput("{}: not a runtime adjustment (kind is not runtime_adjustment)", source);
  RuntimeAdjustment a;
  try {
    a.producer = root["producer"].as<std::string>("");
    a.device = root["device"].as<std::string>("");
    if (const YAML::Node src = root["source"]; src && src.IsMap()) {
      a.trace = src["trace"].as<std::string>("");
      a.diagnosis = src["diagnosis"].as<std::string>("");
      const std::string hash = src["content_hash"].as<std::string>("");
      if (!hash.empty() && !ParseContentHash(hash, &a.content_hash))
        return InvalidInput("{}: source.content_hash '{}' is not a hash", source, hash);
    }
    for (RuntimeSection sec : kSections) {
      const YAML::Node n = root[std::string(RuntimeSectionId(sec))];
      if (!n) continue;
      if (!n.IsMap()) return InvalidInput("{}: `{}` is not a map", source, RuntimeSectionId(sec));
      for (const auto& kv : n) {
        const std::string name = kv.first.as<std::string>();
        if (!kv.second.IsMap() || !kv.second["value"])
          return InvalidInput("{}: {}.{} has no `value`", source, RuntimeSectionId(sec), name);
        a.settings.push_back({sec, name, kv.second["value"].as<std::string>(""), kv.second["reason"].as<std::string>("")});
      }
    }
    if (const YAML::Node n = root["notes"]; n && n.IsSequence())
      for (const YAML::Node& x : n) a.notes.push_back(x.as<std::string>(""));
  } catch (const YAML::Exception& e) {
    return InvalidInput("{}: line {}: {}", source, e.mark.line + 1, e.msg);
  }
  return a;
}

}  // namespace cprof
