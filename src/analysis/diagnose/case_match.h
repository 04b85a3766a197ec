// Matching new findings against the case library: which past cases (case_card.h) look like this
// finding, with a similarity score in [0, 1].
//
//   std::vector<CaseMatch> m = MatchCases(diagnosis, cards, /*min_similarity=*/0.5);
//   for (const CaseMatch& c : m) cite(diagnosis.findings[c.finding], cards[c.card], c.similarity);
//
// Similarity of finding f and card k (documented in the README, "case-card"):
//   0 when f's category is not k's primary category (the problem the card solved; the other
//   categories on the card are context, and its fix does not address them); otherwise
//   0.4 + 0.3 * cos(metrics) + 0.2 * jaccard(ops) + 0.1 * [same device]
// where cos(metrics) is the cosine similarity of the two metric vectors over the union of f's
// metric names and the card's key metrics of that category (a missing value counts 0), each
// value normalized as sign(x) * log10(1 + |x|) so nanoseconds and ratios weigh alike, plus the
// saving fraction; jaccard(ops) is |A ∩ B| / |A ∪ B| of f's evidence event names and the card's
// top op names (0 when both are empty). A same-category case with nothing else in common scores
// 0.4; the same problem in the same workload scores near 1.
#pragma once

#include <cstddef>
#include <vector>

#include "analysis/diagnose/case_card.h"
#include "analysis/diagnose/diagnose.h"

namespace cprof {

struct CaseMatch {
  size_t finding = 0;  // index into Diagnosis::findings
  size_t card = 0;     // index into the cards
  double similarity = 0;
};

double CaseSimilarity(const Finding& f, int64_t span_ns, const CaseCard& card);

// For every finding, the cards at or above min_similarity, best first (at most `per_finding`).
std::vector<CaseMatch> MatchCases(const Diagnosis& d, const std::vector<CaseCard>& cards, double min_similarity = 0.5,
                                  size_t per_finding = 3);

}  // namespace cprof
