// A case card from a diagnosis (case_card.h).
#include "analysis/diagnose/case_card.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/diagnose/plan.h"

namespace cprof {
namespace {

void Fnv(uint64_t& h, std::string_view s) {
  for (unsigned char c : s) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  h ^= 0xff;  // separator
  h *= 1099511628211ULL;
}

std::string Ms(int64_t ns) { return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6); }

}  // namespace

uint64_t CaseFingerprint(std::vector<std::string> categories, const std::string& device,
                         const std::vector<std::string>& top_ops) {
  std::sort(categories.begin(), categories.end());
  std::vector<std::string> ops = top_ops;
  std::sort(ops.begin(), ops.end());
  uint64_t h = 1469598103934665603ULL;
  for (const std::string& c : categories) Fnv(h, c);
  Fnv(h, device);
  for (const std::string& o : ops) Fnv(h, o);
  return h;
}

CaseCard BuildCaseCard(const Diagnosis& d, const std::string& solution, const std::optional<MeasuredGain>& measured,
                       size_t primary) {
  CaseCard card;
  card.device = std::string(DeviceKindId(d.device));
  card.framework = "pytorch";
  card.trace = d.trace_path;
  card.content_hash = d.content_hash;
  card.measured = measured;
  const double span = static_cast<double>(std::max<int64_t>(1, d.span_ns));
  if (d.findings.empty()) {
    card.title = "no finding";
    card.problem = "The diagnosis found nothing to fix.";
    card.id = "none-" + fmt::format("{:016x}", d.content_hash).substr(0, 8);
    return card;
  }
  const Finding& top = d.findings[primary < d.findings.size() ? primary : 0];
  std::vector<const Finding*> order = {&top};  // the primary first, then the rest in rank order
  for (const Finding& f : d.findings)
    if (&f != &top) order.push_back(&f);
  for (const Finding* fp : order) {
    const Finding& f = *fp;
    if (&f != &top && f.confidence < 0.5) continue;
    const std::string cat(CategoryId(f.category));
    if (std::find(card.categories.begin(), card.categories.end(), cat) != card.categories.end()) continue;
    card.categories.push_back(cat);
    for (const FindingMetric& m : f.metrics) card.key_metrics[cat + "." + m.name] = m.value;
    card.key_metrics[cat + ".saving_fraction"] = static_cast<double>(f.saving_ns) / span;
  }
  for (const EvidenceEvent& e : top.events) {
    if (card.top_ops.size() >= 5) break;
    if (std::find(card.top_ops.begin(), card.top_ops.end(), e.name) == card.top_ops.end()) card.top_ops.push_back(e.name);
  }
  card.fingerprint = CaseFingerprint(card.categories, card.device, card.top_ops);
  card.id = fmt::format("{}-{:016x}", card.categories.front(), card.fingerprint).substr(0, card.categories.front().size() + 9);
  card.title = top.title;
  const int64_t steps = std::max<int64_t>(1, d.step_count);
  card.problem = fmt::format("{} ({} trace, {} step{}, {} per step on average). This finding costs {} per step; "
                             "the diagnosis estimated a saving of {} ({}).",
                             top.title, card.device, d.step_count, d.step_count == 1 ? "" : "s", Ms(d.step_mean_ns),
                             Ms(top.cost_per_step_ns), Ms(top.saving_ns / steps) + " per step", top.saving_method);
  card.root_cause = fmt::format("`{}` (confidence {:.2f}): {}", CategoryId(top.category), top.confidence,
                                top.summary.empty() ? top.title : top.summary);
  if (card.categories.size() > 1)
    card.root_cause += fmt::format("\n\nAlso present: {}.", fmt::join(card.categories.begin() + 1, card.categories.end(), ", "));
  if (!solution.empty()) {
    card.fix = solution;
  } else {
    for (const Suggestion& s : top.suggestions) {
      card.fix += "- " + s.text + "\n";
      if (!s.snippet.empty()) card.fix += "\n  ```\n  " + s.snippet + "\n  ```\n";
    }
    if (card.fix.empty()) card.fix = "(the diagnosis made no suggestion; describe the fix with --solution)";
  }
  card.applies_to = fmt::format("{} workloads on {} showing `{}`{}", card.framework, card.device,
                                CategoryId(top.category),
                                card.top_ops.empty() ? "" : fmt::format(" around {}", fmt::join(card.top_ops, ", ")));
  card.risks = fmt::format("Risk {}: {}.", PlanRiskId(RiskOf(top.category)), RiskReason(top.category));
  return card;
}

}  // namespace cprof
