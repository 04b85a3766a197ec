// `tune --report study.html`: the finished study as the HTML tuning report
// (report/tune/tuning_report.h), with parameter importance (tune/parameter_importance.h).
//
//   TuningReportData d = TuningReportFrom(result, objective, maximize, command_text, guided);
#pragma once

#include <string>
#include <vector>

#include "report/tune/tuning_report.h"
#include "tune/tuner.h"

namespace cprof::cli {

// `objectives`: all of the study's (the Pareto front's columns); `objective` is the first.
TuningReportData TuningReportFrom(const tune::TuneResult& r, const std::string& objective, bool maximize,
                                  const std::string& command, const std::string& guided_start,
                                  const std::vector<tune::ObjectiveSpec>& objectives = {});

}  // namespace cprof::cli
