// Guidance from a diagnosis: not available until the diagnose command defines its report.
#include "tune/diagnosis_guidance.h"

namespace cprof::tune {

StatusOr<DiagnosisGuidance> LoadDiagnosisGuidance(const std::string& report_path) {
  return Unavailable("--from_diagnosis {}: reading diagnosis reports needs the `diagnose` command's report "
                     "schema, which this build does not have yet; give the space with --space",
                     report_path);
}

}  // namespace cprof::tune
