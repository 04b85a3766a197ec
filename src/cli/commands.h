// The registry of subcommands: one Add*Command per file, listed once in AddAllCommands.
#pragma once

#include <string_view>
#include <vector>

#include "cli/cli_common.h"

namespace cprof::cli {

Command AddSummaryCommand(CLI::App& root);  // summary_command.cc
Command AddInfoCommand(CLI::App& root);     // info_command.cc
Command AddQueryCommand(CLI::App& root);    // query_command.cc
Command AddConvertCommand(CLI::App& root);  // convert_command.cc
Command AddMetricsCommand(CLI::App& root);  // metrics_command.cc
Command AddTraceCommand(CLI::App& root);    // trace_command.cc
Command AddValidateCommand(CLI::App& root);  // validate_command.cc
Command AddCompareCommand(CLI::App& root);   // compare_command.cc
Command AddVisualizeCommand(CLI::App& root);  // visualize_command.cc
Command AddTuneCommand(CLI::App& root);       // tune_command.cc
Command AddClusterCommand(CLI::App& root);    // cluster_command.cc
Command AddDiagnoseCommand(CLI::App& root);   // diagnose_command.cc
Command AddGeneratePlanCommand(CLI::App& root);     // generate_plan_command.cc
Command AddRecommendRuntimeCommand(CLI::App& root);  // recommend_runtime_command.cc
Command AddCaseCardCommand(CLI::App& root);          // case_card_command.cc

// Every subcommand, in the order `--help` lists them.
std::vector<Command> AddAllCommands(CLI::App& root);

// True for subcommands that import traces: they get --max_memory and --max_gzip_ratio.
bool CommandImportsTraces(std::string_view name);

}  // namespace cprof::cli
