// The diagnosis report as Markdown (diagnosis_markdown.h).
#include "report/diagnose/diagnosis_markdown.h"

#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "report/diagnose/diagnosis_json.h"

namespace cprof {
namespace {

// Table cells must not break the table.
std::string Cell(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '|') c = ' ';
  return s;
}

std::string MetricValue(const FindingMetric& m) {
  if (m.unit == "ns") return HumanDuration(static_cast<int64_t>(m.value));
  if (m.unit == "ratio") return fmt::format("{:.1f}%", 100 * m.value);
  if (m.unit == "count" || m.unit == "bytes") return fmt::format("{:.0f}{}", m.value, m.unit == "bytes" ? " B" : "");
  return fmt::format("{:.4g}{}{}", m.value, m.unit.empty() ? "" : " ", m.unit);
}

}  // namespace

std::string HumanDuration(int64_t ns) {
  const double a = std::abs(static_cast<double>(ns));
  if (a >= 1e9) return fmt::format("{:.3g} s", ns / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g} ms", ns / 1e6);
  if (a >= 1e3) return fmt::format("{:.3g} us", ns / 1e3);
  return fmt::format("{} ns", ns);
}

std::string DiagnosisToMarkdown(const Diagnosis& d) {
  std::string md = "# Diagnosis\n\n";
  md += fmt::format("- trace: `{}` ({}), content hash `{}`\n", d.trace_path, d.source_format.empty() ? "?" : d.source_format,
                    FormatContentHash(d.content_hash));
  md += fmt::format("- device: {}{}; problem: {}{}\n", DeviceKindId(d.device),
                    d.torch_version.empty() ? "" : fmt::format(", PyTorch {}", d.torch_version), ProblemId(d.problem),
                    d.threshold_text.empty() ? "" : fmt::format(" (threshold `{}`)", d.threshold_text));
  md += fmt::format("- analysed span: {}; steps: {}{}\n", HumanDuration(d.span_ns), d.step_count,
                    d.step_count > 0 ? fmt::format(" (mean {})", HumanDuration(d.step_mean_ns)) : "");
  for (const std::string& n : d.notes) md += fmt::format("- note: {}\n", n);
  if (d.findings.empty()) {
    md += fmt::format("\nNo findings: none of the {} rules found a cause above its threshold.\n", d.rules_run);
    return md;
  }
  md += "\n| # | category | finding | confidence | saving | cost / step |\n|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    md += fmt::format("| {} | `{}` | {} | {:.2f} | {} | {} |\n", i + 1, CategoryId(f.category), Cell(f.title),
                      f.confidence, HumanDuration(f.saving_ns),
                      f.cost_per_step_ns > 0 ? HumanDuration(f.cost_per_step_ns) : "-");
  }
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    md += fmt::format("\n## {}. {}\n\n", i + 1, f.title);
    md += fmt::format("`{}` · confidence {:.2f} (magnitude {:.2f}, support {:.2f}, consistency {:.2f}, specificity "
                      "{:.2f}) · costs {} in total",
                      CategoryId(f.category), f.confidence, f.confidence_terms.magnitude, f.confidence_terms.support,
                      f.confidence_terms.consistency, f.confidence_terms.specificity, HumanDuration(f.cost_total_ns));
    if (f.cost_per_step_ns > 0) md += fmt::format(", {} per step", HumanDuration(f.cost_per_step_ns));
    md += "\n\n" + f.summary + "\n\n";
    md += fmt::format("**Estimated saving: {}.** {}\n", HumanDuration(f.saving_ns), f.saving_method);
    if (!f.metrics.empty()) {
      md += "\n| metric | value |\n|---|---|\n";
      for (const FindingMetric& m : f.metrics) md += fmt::format("| {} | {} |\n", Cell(m.name), MetricValue(m));
    }
    if (!f.events.empty()) {
      md += "\nEvidence:\n\n";
      for (const EvidenceEvent& e : f.events)
        md += fmt::format("- `{}` on `{}` at {} ns, {}{}\n", Cell(e.name), e.track_path, e.ts_ns, HumanDuration(e.dur_ns),
                          e.note.empty() ? "" : " — " + e.note);
    }
    if (!f.suggestions.empty()) {
      md += "\nWhat to do:\n";
      for (const Suggestion& s : f.suggestions) {
        md += "\n- " + s.text + "\n";
        if (!s.snippet.empty())
          md += fmt::format("\n  ```{}\n  {}\n  ```\n", s.kind == "env" || s.kind == "command" ? "sh" : "python",
                            [&] {
                              std::string t = s.snippet;
                              for (size_t k = t.find('\n'); k != std::string::npos; k = t.find('\n', k + 3)) t.insert(k + 1, "  ");
                              return t;
                            }());
      }
    }
  }
  return md;
}

}  // namespace cprof
