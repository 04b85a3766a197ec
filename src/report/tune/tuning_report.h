// The HTML report of a tuning study: the result (best configuration, its re-measured interval,
// the change against the default, the fresh runs that chose it), the Pareto front when there are several objectives, the
// convergence curve (every trial's objective and the best so far, as inline SVG), parameter
// importance, and the trials. A static page with no script.
//
//   TuningReportData d;   // filled by `tune` from its TuneResult (cli/tune_command.cc)
//   std::string html = TuningReportHtml(d);
//
// The data is plain (no dependency on the tune module): the caller converts.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace cprof {

struct TuningReportTrial {
  int64_t number = 0;
  std::string state;             // "complete", "failed", ...
  std::optional<double> value;   // the first objective, complete trials only
  std::map<std::string, std::string> params;
  std::string sampler;
  std::string reason;            // why it failed
  std::optional<size_t> remeasured;  // index into TuningReportData::remeasured
  bool fresh_runs_failed = false;    // measured again for the result, every run failed
};

struct TuningReportRemeasured {
  int64_t number = 0;
  std::map<std::string, std::string> params;
  size_t n = 0;
  double mean = 0, ci_low = 0, ci_high = 0;
  bool raced_away = false;  // a candidate measured no more: clearly worse than the best
};

struct TuningReportImportance {
  std::string name;
  double share = 0, eta_squared = 0;
  int levels = 0;
};

// A configuration on the Pareto front of a study with several objectives.
struct TuningReportParetoPoint {
  int64_t number = 0;
  std::vector<double> values;  // one per TuningReportData::pareto_objectives
  std::map<std::string, std::string> params;
};

struct TuningReportData {
  std::string study;
  std::string objective;         // e.g. "latency_ms"
  bool maximize = false;
  std::string command;           // the tuned command line, for the reader
  std::vector<TuningReportTrial> trials;   // in evaluation order
  std::optional<size_t> best;              // index into trials
  std::optional<size_t> default_trial;     // index into trials
  // The best's and the default's values as the terminal's summary reports them (re-measured means
  // where there are some), and the change from the default to the best in percent, positive =
  // better; unset when the two values are not of one kind (a search value against a fresh mean).
  std::optional<double> best_value, default_value, improvement_pct;
  std::vector<TuningReportRemeasured> remeasured;
  // The fresh runs that chose the recommendation among the search's best and the default (they
  // are not the reported ones above: they chose the winner, so they are biased toward it).
  std::vector<TuningReportRemeasured> remeasure_candidates;
  std::vector<TuningReportImportance> importances;
  std::string guided_start;      // "threads=2 (thread_oversubscription)" when --from_diagnosis
  // Several objectives: their names ("latency_ms (min)") and the non-dominated trials.
  std::vector<std::string> pareto_objectives;
  std::vector<TuningReportParetoPoint> pareto;
  // Lines under the result, as the terminal's summary says them: what --time cut, why the
  // default is kept.
  std::vector<std::string> notes;
};

std::string TuningReportHtml(const TuningReportData& d);

// A configuration as "name=value name=value" (by name), as the report and tune's terminal show it.
std::string ParamsText(const std::map<std::string, std::string>& params);

// The change from the default to the best, in percent of the default, positive = better whichever
// the direction, as the report and tune's terminal word it: "+12.0% better with the best", or
// "3.1% worse with the best" (fresh runs can measure the search's pick below the default).
std::string ImprovementText(double percent);

// After a re-measured candidate that racing stopped, as the report and tune's terminal mark it.
inline constexpr const char* kRacedAwayNote = " (stopped early: clearly worse)";

// The convergence curve alone (an <svg> element): one dot per complete trial, failed trials as
// crosses on the top edge, the best-so-far as a step line, the default as a dashed line. The
// value axis is logarithmic (and says so) when the values are positive and the largest is more
// than kLogAxisRatio times the smallest.
inline constexpr double kLogAxisRatio = 20;
std::string ConvergenceSvg(const TuningReportData& d);

}  // namespace cprof
