// The diagnosis report as YAML (`diagnose --output root_cause_report.yaml`): the same tree as the
// JSON form (diagnosis_json.h documents the fields), emitted with yaml-cpp. Readers: LoadDiagnosis
// (diagnosis_reader.h; `tune --from_diagnosis` too) and the performance map's LoadFindingsFile.
//
//   std::string text = DiagnosisToYaml(diagnosis, cli::kSchemaVersion);
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "analysis/diagnose/diagnose.h"

namespace cprof {

// The first line of the YAML report, and its last: YAML's document end, so that a copy cut short
// (a full disk, an interrupted transfer) is told from a shorter report (ReadDiagnosisFile).
inline constexpr std::string_view kDiagnosisYamlHeader =
    "# cann-profiler diagnose: root causes, ranked by saving x confidence (schema in README.md, \"diagnose\"); the "
    "report ends with a line '...'";
inline constexpr std::string_view kDiagnosisYamlEnd = "...";

std::string DiagnosisToYaml(const Diagnosis& d, int schema_version);

// Any JSON tree as block YAML. Strings that YAML would read as something else (numbers,
// booleans, hex, empty) and multi-line strings are double-quoted, so every string reads back exactly.
std::string JsonToYaml(const nlohmann::ordered_json& doc);

}  // namespace cprof
