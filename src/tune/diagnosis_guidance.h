// Guidance from a diagnosis: the seam through which `tune --from_diagnosis` will turn the
// diagnose command's findings into a search space and a starting point (layout conversion ->
// memory format; oversubscription -> thread counts; memory churn -> allocator settings; launch
// overhead -> fusion/compile switches) and write the choice as runtime_adjustment.yaml.
//
//   ASSIGN_OR_RETURN(DiagnosisGuidance g, LoadDiagnosisGuidance("root_cause_report.yaml"));
//
// The diagnosis report's schema belongs to the diagnose issue; until it lands this returns
// kUnavailable with a message that says so, and nothing else in the tuner depends on it.
#pragma once

#include <map>
#include <string>

#include "base/status.h"
#include "tune/search_space.h"

namespace cprof::tune {

struct DiagnosisGuidance {
  SpaceDefinition space;                    // parameters suggested by the findings
  std::map<std::string, Value> start;       // the configuration to evaluate first
  std::map<std::string, std::string> why;   // parameter -> the finding that suggested it
};

StatusOr<DiagnosisGuidance> LoadDiagnosisGuidance(const std::string& report_path);

}  // namespace cprof::tune
