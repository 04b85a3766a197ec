// Reads a diagnosis report (YAML or JSON, as diagnosis_yaml.h / diagnosis_json.h write it) back
// into a Diagnosis, for the commands that start from one (generate-plan, case-card).
//
//   ASSIGN_OR_RETURN(Diagnosis d, LoadDiagnosis("root_cause_report.yaml"));
//   for (const Finding& f : d.findings) plan(f.category, f.saving_ns, f.suggestions);
//
// Findings keep the report's order (ranked). An unknown category is an error (the ids are stable,
// category.h); missing optional fields take their defaults. Errors are kInvalidInput naming the
// file, or kNotFound when it cannot be opened.
//
// A trace given where a report belongs (the usual slip: `--diagnosis run.pb`) is named as such,
// with the command that makes a report, instead of a YAML syntax error from its bytes.
#pragma once

#include <string>

#include "analysis/diagnose/diagnose.h"
#include "base/status.h"

namespace cprof {

StatusOr<Diagnosis> LoadDiagnosis(const std::string& path);
// The text of the report at `path`: kNotFound with the system's reason when it cannot be read;
// kInvalidInput when `path` is a folder or a trace (binary, gzip, SQLite or Chrome JSON). Shared
// with the performance map's LoadFindingsFile.
StatusOr<std::string> ReadDiagnosisFile(const std::string& path);
StatusOr<Diagnosis> ParseDiagnosis(const std::string& text, const std::string& source);

}  // namespace cprof
