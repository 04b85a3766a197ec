// The diagnosis report as YAML (`diagnose --output root_cause_report.yaml`): the same tree as the
// JSON form (diagnosis_json.h documents the fields), emitted with yaml-cpp. Readers: LoadDiagnosis
// (diagnosis_reader.h), the performance map's LoadFindingsFile, the tuner's LoadDiagnosisGuidance.
//
//   std::string text = DiagnosisToYaml(diagnosis, cli::kSchemaVersion);
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/diagnose/diagnose.h"

namespace cprof {

std::string DiagnosisToYaml(const Diagnosis& d, int schema_version);

// Any JSON tree as block YAML. Strings that YAML would read as something else (numbers,
// booleans, hex, empty) and multi-line strings are double-quoted, so every string reads back exactly.
std::string JsonToYaml(const nlohmann::ordered_json& doc);

}  // namespace cprof
