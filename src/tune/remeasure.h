// The re-measurement that ends a study, in two stages of fresh measurements (the search's are
// kept in the trial records, never pooled in: they are what made the best look best):
//   1. choose: the best `remeasure_top` configurations by their search values, and the default,
//      are measured in turns up to RemeasureRepeats() times each, a configuration clearly worse
//      than the best mean after 2 turns or more measured no more (racing.h); the recommendation
//      is the best mean of those left (a lucky search measurement does not win);
//   2. report: the chosen configuration and the default are measured that many times again,
//      alternating, and only these measurements are reported (mean, 95% interval, the
//      improvement). Stage 1's means are biased toward the one they chose, as the search's were:
//      on a pure-noise objective they report +5% over the default on average (remeasure_test.cc).
//
//   RemeasureBest(options, objectives[0], evaluator, progress, &result);
//   if (const Remeasured* m = RemeasuredOf(result, *result.best)) use(m->mean, m->ci_low, m->ci_high);
#pragma once

#include <chrono>
#include <cstdint>

#include "tune/evaluator.h"
#include "tune/tuner.h"

namespace cprof::tune {

// Fresh measurements of each configuration in each stage: remeasure_repeats, at least 3 (an
// interval needs them).
int RemeasureRepeats(const TuneOptions& options);

// The time the re-measurement is expected to take at `seconds_per_measurement` with
// `complete_trials` to choose from: its most measurements (racing can only save some), repeats
// for each candidate (the remeasure_top best, and the default when it is not among them; with
// 1 complete trial, just it) to choose, and repeats for the chosen one and the default again
// (one of them when they are the same). What --time keeps for it.
std::chrono::nanoseconds RemeasureReserve(const TuneOptions& options, double seconds_per_measurement,
                                          int64_t complete_trials);

// The most of --time the search leaves the re-measurement. Its full reserve, with slow trials and
// a short limit, would leave the search next to nothing (1 s trials, 3 repeats and a 20 s limit:
// 18 s after the first trial); past this share the re-measurement chooses among fewer
// configurations (RemeasureTopWithin).
inline constexpr double kRemeasureShareOfTime = 0.25;

// The most configurations (at most options.remeasure_top, at least 1) the re-measurement can
// choose among in `time` at `seconds_per_measurement` with `complete_trials` to choose from: what
// the study's end re-measures when --time has less left than its full reserve. 1 when even that
// does not fit (the deadline then cuts it short); 0 without a re-measurement.
int RemeasureTopWithin(const TuneOptions& options, double seconds_per_measurement, int64_t complete_trials,
                       std::chrono::nanoseconds time);

// Fills result->remeasure_candidates (stage 1: the top configurations by their search values,
// then the default unless among them), result->remeasured (stage 2: the chosen one, then the
// default unless it is the chosen one), result->remeasured_best (0), result->best and
// result->remeasure_end. `deadline` (--time): nothing starts after it and the running measurement
// stops there (Evaluator::SetDeadline); a stage it cuts keeps the measurements it has, each
// configuration's `shortfall` says so, and stage 2 is not started (the search's values stand).
// Skipped when the deadline has passed. A signal (InterruptTrials) stops it without reporting.
void RemeasureBest(const TuneOptions& options, const ObjectiveSpec& objective, Evaluator& evaluator,
                   const ProgressFn& progress, TuneResult* result,
                   std::chrono::steady_clock::time_point deadline = std::chrono::steady_clock::time_point::max());

}  // namespace cprof::tune
