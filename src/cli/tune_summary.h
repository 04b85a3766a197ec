// What `tune` prints: a progress line per evaluation and per re-measured configuration (stderr),
// and the study's result as text or one JSON line (stdout or --output).
//
//   ProgressFn progress = TuneProgressPrinter(ctx.err, options.objectives);
//   TuneResult r = RunStudy(space, evaluator, store, options, progress);
//   std::string text = TuneSummaryText(TuneSummaryInput{r, options, space, storage_url});
#pragma once

#include <optional>
#include <ostream>
#include <string>

#include "tune/search_space.h"
#include "tune/tuner.h"

namespace cprof::cli {

// The study and how it ran, with the values the summary reports.
struct TuneSummaryInput {
  const tune::TuneResult& r;
  const tune::TuneOptions& options;
  const tune::SearchSpace& space;
  std::string storage_url;  // as shown: a password in it redacted (RedactUrlPasswords)
};

// The first objective's name (resolved from the best trial when --objective was not given), the
// best and default values (re-measured means where there are some), and how they compare.
struct TuneOutcome {
  std::string objective;
  bool maximize = false;
  std::optional<double> best_value, default_value;
  std::optional<double> improvement;   // relative, positive = better than the default
  std::optional<bool> within_noise;    // the best's and the default's intervals overlap
  // The default stays the recommendation: in the final runs of both, the best's are within the
  // noise of the default's, or no better (the runs that chose it can favour a configuration that
  // is not). Without final runs of both, the fresh choice stands.
  bool keep_default = false;
  // Measured afresh for the result, and every fresh run failed: the value shown is the search's
  // (biased toward the best), and no improvement is computed across the two kinds of value.
  std::string best_fresh_failed, default_fresh_failed;  // the shortfall, empty when not so
  bool exhausted = false;              // every configuration was tried before the budget ran out
};
TuneOutcome TuneOutcomeOf(const TuneSummaryInput& in);
// Why the default is kept ("within the noise: the intervals overlap; the default is kept"); "" when
// it is not.
std::string KeepDefaultNote(const TuneOutcome& o);
// What --time did to the run, one line each; none when it did nothing.
std::vector<std::string> TimeLimitNotes(const TuneSummaryInput& in);

std::string TuneSummaryText(const TuneSummaryInput& in);
std::string TuneSummaryJson(const TuneSummaryInput& in);

// The progress lines, to `err` (which must outlive the study). Called one at a time (tuner.h).
tune::ProgressFn TuneProgressPrinter(std::ostream& err, const std::vector<tune::ObjectiveSpec>& objectives);

// "6", "1.33086": a value as the terminal shows it.
std::string FormatValueText(double v);

}  // namespace cprof::cli
