// The re-measurement that ends a study: the best `remeasure_top` configurations and the default
// are measured `remeasure_repeats` more times each, so that the reported numbers carry an
// interval, and the recommendation becomes the best re-measured mean (a lucky first measurement
// does not win).
//
//   RemeasureBest(options, objectives[0], evaluator, progress, &result);
//   if (const Remeasured* m = RemeasuredOf(result, *result.best)) use(m->mean, m->ci_low, m->ci_high);
#pragma once

#include "tune/evaluator.h"
#include "tune/tuner.h"

namespace cprof::tune {

// Fills result->remeasured (the top configurations by their first measurements, then the
// default unless among them), result->remeasured_best and result->best.
void RemeasureBest(const TuneOptions& options, const ObjectiveSpec& objective, Evaluator& evaluator,
                   const ProgressFn& progress, TuneResult* result);

}  // namespace cprof::tune
