// The list of subcommands, in one place.
#include "cli/commands.h"

namespace cprof::cli {

std::vector<Command> AddAllCommands(CLI::App& root) {
  return {AddSummaryCommand(root), AddInfoCommand(root), AddQueryCommand(root), AddConvertCommand(root),
          AddMetricsCommand(root), AddValidateCommand(root), AddCompareCommand(root),
          AddDiagnoseCommand(root), AddGeneratePlanCommand(root), AddRecommendRuntimeCommand(root),
          AddCaseCardCommand(root), AddVisualizeCommand(root), AddClusterCommand(root),
          AddTraceCommand(root), AddTuneCommand(root)};
}

bool CommandImportsTraces(std::string_view name) {
  static constexpr std::string_view kImporting[] = {"summary",  "info",     "convert",           "validate",
                                                    "compare",  "diagnose", "recommend-runtime", "case-card",
                                                    "visualize", "cluster",  "query"};
  for (std::string_view n : kImporting) {
    if (n == name) return true;
  }
  return false;
}

}  // namespace cprof::cli
