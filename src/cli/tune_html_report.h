// `tune --report study.html`: the finished study as the HTML tuning report
// (report/tune/tuning_report.h), with parameter importance (tune/parameter_importance.h).
//
//   TuningReportData d = TuningReportFrom(result, command_text, guided);
#pragma once

#include <string>
#include <vector>

#include "report/tune/tuning_report.h"
#include "tune/tuner.h"

namespace cprof::cli {

// The objective is the study's first (r.objectives); with several, each is a Pareto front column.
TuningReportData TuningReportFrom(const tune::TuneResult& r, const std::string& command,
                                  const std::string& guided_start);

}  // namespace cprof::cli
