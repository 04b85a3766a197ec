// The diagnosis report as YAML (diagnosis_yaml.h).
#include "report/diagnose/diagnosis_yaml.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "report/diagnose/diagnosis_json.h"

namespace cprof {
namespace {

// Whether a plain scalar with this text would not read back as the same string.
bool NeedsQuotes(const std::string& s) {
  if (s.empty()) return true;
  std::string lower = s;
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* word : {"true", "false", "null", "yes", "no", "on", "off", "~", "y", "n", ".nan", ".inf", "-.inf"})
    if (lower == word) return true;
  if (lower.rfind("0x", 0) == 0 || lower.rfind("0o", 0) == 0) return true;
  char* end = nullptr;
  std::strtod(s.c_str(), &end);
  return end != nullptr && *end == '\0';
}

void Emit(YAML::Emitter& out, const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::json::value_t::object:
      out << YAML::BeginMap;
      for (auto it = j.begin(); it != j.end(); ++it) {
        out << YAML::Key << it.key() << YAML::Value;
        Emit(out, it.value());
      }
      out << YAML::EndMap;
      break;
    case nlohmann::json::value_t::array:
      out << YAML::BeginSeq;
      for (const auto& item : j) Emit(out, item);
      out << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::string: {
      const std::string& s = j.get_ref<const std::string&>();
      // yaml-cpp writes literal blocks with clip chomping ("|"), which adds a final newline on
      // reading; double quotes (with \n escapes) read back exactly.
      if (s.find('\n') != std::string::npos || NeedsQuotes(s)) {
        out << YAML::DoubleQuoted << s;
      } else {
        out << s;
      }
      break;
    }
    case nlohmann::json::value_t::boolean: out << j.get<bool>(); break;
    case nlohmann::json::value_t::number_integer: out << j.get<int64_t>(); break;
    case nlohmann::json::value_t::number_unsigned: out << j.get<uint64_t>(); break;
    case nlohmann::json::value_t::number_float: {
      const double v = j.get<double>();
      out << (std::isfinite(v) ? fmt::format("{}", v) : std::string("null"));
      break;
    }
    default: out << YAML::Null; break;
  }
}

}  // namespace

std::string JsonToYaml(const nlohmann::ordered_json& doc) {
  YAML::Emitter out;
  out.SetIndent(2);
  Emit(out, doc);
  std::string text = out.c_str();
  text += '\n';
  return text;
}

std::string DiagnosisToYaml(const Diagnosis& d, int schema_version) {
  std::string yaml = std::string(kDiagnosisYamlHeader) + "\n" + JsonToYaml(DiagnosisToJson(d, schema_version));
  if (!yaml.ends_with('\n')) yaml += '\n';
  // YAML's document end: a copy cut short anywhere parses as a shorter report, so the reader
  // checks for it (ParseDiagnosis).
  return yaml + std::string(kDiagnosisYamlEnd) + "\n";
}

}  // namespace cprof
