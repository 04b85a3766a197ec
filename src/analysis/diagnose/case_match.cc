// Similarity of findings and past cases (case_match.h).
#include "analysis/diagnose/case_match.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace cprof {
namespace {

double Norm(double x) { return std::copysign(std::log10(1 + std::fabs(x)), x); }

}  // namespace

double CaseSimilarity(const Finding& f, int64_t span_ns, const CaseCard& card) {
  const std::string cat(CategoryId(f.category));
  if (card.categories.empty() || card.categories.front() != cat) return 0;
  // Metric vectors over the union of names.
  std::map<std::string, std::pair<double, double>> v;  // name -> (finding, card)
  for (const FindingMetric& m : f.metrics) v[cat + "." + m.name].first = Norm(m.value);
  v[cat + ".saving_fraction"].first =
      Norm(static_cast<double>(f.saving_ns) / static_cast<double>(std::max<int64_t>(1, span_ns)));
  const std::string prefix = cat + ".";
  for (const auto& [name, value] : card.key_metrics)
    if (name.starts_with(prefix)) v[name].second = Norm(value);
  double dot = 0, na = 0, nb = 0;
  for (const auto& [name, ab] : v) {
    dot += ab.first * ab.second;
    na += ab.first * ab.first;
    nb += ab.second * ab.second;
  }
  const double cosine = na > 0 && nb > 0 ? std::clamp(dot / std::sqrt(na * nb), 0.0, 1.0) : 0.0;
  std::set<std::string> a, b(card.top_ops.begin(), card.top_ops.end());
  for (const EvidenceEvent& e : f.events) a.insert(e.name);
  size_t inter = 0;
  for (const std::string& s : a) inter += b.count(s);
  const size_t uni = a.size() + b.size() - inter;
  const double jaccard = uni > 0 ? static_cast<double>(inter) / static_cast<double>(uni) : 0.0;
  const double same_device = f.device == card.device || (f.device.empty() && card.device.empty()) ? 1.0 : 0.0;
  return 0.4 + 0.3 * cosine + 0.2 * jaccard + 0.1 * same_device;
}

std::vector<CaseMatch> MatchCases(const Diagnosis& d, const std::vector<CaseCard>& cards, double min_similarity,
                                  size_t per_finding) {
  std::vector<CaseMatch> out;
  for (size_t i = 0; i < d.findings.size(); ++i) {
    std::vector<CaseMatch> mine;
    for (size_t k = 0; k < cards.size(); ++k) {
      const double s = CaseSimilarity(d.findings[i], d.span_ns, cards[k]);
      if (s >= min_similarity) mine.push_back({i, k, s});
    }
    std::stable_sort(mine.begin(), mine.end(),
                     [](const CaseMatch& x, const CaseMatch& y) { return x.similarity > y.similarity; });
    if (mine.size() > per_finding) mine.resize(per_finding);
    out.insert(out.end(), mine.begin(), mine.end());
  }
  return out;
}

}  // namespace cprof
