// The one confidence formula every rule uses, so that 0.8 means the same for every category.
//
//   ConfidenceTerms t;
//   t.magnitude = MagnitudeOverThreshold(/*observed=*/0.42, /*threshold=*/0.15);  // 0.64
//   t.support = SupportFromCount(steps_with_symptom);                              // n / (n + 3)
//   t.consistency = steps_with_symptom / double(steps);
//   t.specificity = 1.0;   // the evidence names the cause directly
//   double c = ComputeConfidence(t);
//
// Four terms in [0, 1]:
//  - magnitude: how far the observed symptom is past the threshold at which the rule fires:
//    1 - threshold / observed (0 at the threshold, 0.5 at twice it, 0.9 at ten times it);
//  - support: how much independent evidence there is, n / (n + 3) for n observations (steps,
//    requests, events; 1 -> 0.25, 3 -> 0.5, 12 -> 0.8);
//  - consistency: the share of steps (or windows) that show the symptom (1 when there are none);
//  - specificity: how directly the evidence names this cause rather than a neighbour: 1 when it
//    is read off the trace (a TransData op is a layout conversion), lower when inferred (a gap
//    with no host events is *probably* Python or the input pipeline). Each rule documents its value.
// confidence = magnitude^0.4 * support^0.2 * consistency^0.2 * specificity^0.2.
// Magnitude weighs most: a symptom barely past its threshold is never confident, however often
// it is seen. A rule below its threshold (magnitude 0) yields confidence 0 and no finding.
#pragma once

#include <cstdint>

namespace cprof {

struct ConfidenceTerms {
  double magnitude = 0;
  double support = 0;
  double consistency = 1;
  double specificity = 1;
};

double ComputeConfidence(const ConfidenceTerms& t);
// 1 - threshold / observed, clamped to [0, 1]; 0 when observed <= threshold.
double MagnitudeOverThreshold(double observed, double threshold);
// n / (n + 3).
double SupportFromCount(int64_t n);

}  // namespace cprof
