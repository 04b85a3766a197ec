// The list of subcommands, in one place.
#include "cli/commands.h"

namespace cprof::cli {

std::vector<Command> AddAllCommands(CLI::App& root) {
  return {AddSummaryCommand(root), AddInfoCommand(root), AddConvertCommand(root),
          AddMetricsCommand(root), AddValidateCommand(root), AddCompareCommand(root),
          AddDiagnoseCommand(root), AddGeneratePlanCommand(root), AddRecommendRuntimeCommand(root),
          AddCaseCardCommand(root), AddVisualizeCommand(root), AddClusterCommand(root),
          AddTraceCommand(root), AddTuneCommand(root)};
}

}  // namespace cprof::cli
