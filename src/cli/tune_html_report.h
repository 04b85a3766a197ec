// `tune --report study.html`: the finished study as the HTML tuning report
// (report/tune/tuning_report.h), with parameter importance (tune/parameter_importance.h).
//
//   TuningReportData d = TuningReportFrom(TuneSummaryInput{result, options, space, url}, command_text, guided);
#pragma once

#include <string>
#include <vector>

#include "cli/tune_summary.h"
#include "report/tune/tuning_report.h"

namespace cprof::cli {

// The objective is the study's first (r.objectives); with several, each is a Pareto front column.
// The result's values, the improvement and the notes under them are the terminal summary's
// (TuneOutcomeOf, TimeLimitNotes, KeepDefaultNote).
TuningReportData TuningReportFrom(const TuneSummaryInput& in, const std::string& command,
                                  const std::string& guided_start);

}  // namespace cprof::cli
