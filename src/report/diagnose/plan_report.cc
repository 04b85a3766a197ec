// The optimization plan as Markdown and JSON (plan_report.h).
#include "report/diagnose/plan_report.h"

#include <fmt/format.h>

#include "report/diagnose/diagnosis_markdown.h"

namespace cprof {
namespace {

std::string Ms(int64_t ns) { return fmt::format("{:.2f} ms", static_cast<double>(ns) / 1e6); }

std::string Cell(std::string s) {
  for (char& c : s)
    if (c == '\n' || c == '|') c = ' ';
  return s;
}

std::string Lang(const Suggestion& s) {
  if (s.kind == "env" || s.kind == "command") return "sh";
  if (s.kind == "code") return "python";
  return "";
}

}  // namespace

std::string PlanToMarkdown(const Plan& p) {
  std::string md = "# Optimization plan\n\n";
  md += fmt::format("- trace: `{}` ({} on {}), {} step{} of {} on average\n", p.trace_path.empty() ? "?" : p.trace_path,
                    p.framework, p.device, p.step_count, p.step_count == 1 ? "" : "s", HumanDuration(p.step_ns));
  md += fmt::format("- priority: **{}**; risk tolerance: **{}**\n", PlanPriorityId(p.options.priority),
                    PlanRiskId(p.options.risk_tolerance));
  md += "- gains are per step, as a range: the finding's saving per step s with confidence c gives "
        "[s·c/2, s·(1+c)/2]; gains of dependent steps do not add\n\n";
  if (p.steps.empty()) {
    md += "No finding qualifies for a step at this risk tolerance and confidence.\n";
  } else {
    md += "| # | change for | category | expected gain / step | risk | after |\n|---|---|---|---|---|---|\n";
    for (const PlanStep& s : p.steps) {
      std::string after;
      for (int n : s.depends_on) after += fmt::format("{}{}", after.empty() ? "" : ", ", n);
      md += fmt::format("| {} | {} ({}) | `{}` | {:.1f}–{:.1f}% ({}–{}) | {} | {} |\n", s.number, Cell(s.title),
                        s.finding_id, CategoryId(s.category), s.gain_low_pct, s.gain_high_pct, Ms(s.gain_low_ns),
                        Ms(s.gain_high_ns), PlanRiskId(s.risk), after.empty() ? "-" : after);
    }
  }
  for (const PlanStep& s : p.steps) {
    md += fmt::format("\n## Step {}: {}\n\n", s.number, s.title);
    md += fmt::format("- finding {} `{}` on {}, confidence {:.2f}{}\n", s.finding_id, CategoryId(s.category), s.device,
                      s.confidence, s.serves_priority ? fmt::format(", serves {}", PlanPriorityId(p.options.priority)) : "");
    md += fmt::format("- expected gain: **{:.1f}–{:.1f}% of step time ({}–{} per step)**; {}\n", s.gain_low_pct,
                      s.gain_high_pct, Ms(s.gain_low_ns), Ms(s.gain_high_ns), s.gain_method);
    md += fmt::format("- risk: **{}** — {}\n", PlanRiskId(s.risk), s.risk_reason);
    if (!s.dependency_note.empty()) md += "- depends on: " + s.dependency_note + "\n";
    md += "\nChange:\n";
    for (const Suggestion& g : s.changes) {
      md += fmt::format("\n- {}{}\n", g.kind.empty() ? "" : "[" + g.kind + "] ", g.text);
      if (!g.snippet.empty()) md += fmt::format("\n  ```{}\n  {}\n  ```\n", Lang(g), [&] {
        std::string t;
        for (char c : g.snippet) t += c == '\n' ? std::string("\n  ") : std::string(1, c);
        return t;
      }());
    }
    md += fmt::format("\nProve it (trace the changed run to the `--after` path first):\n\n```sh\n{}\n```\n",
                      s.validate_command);
  }
  if (!p.deferred.empty()) {
    md += "\n## Not in this plan\n\n";
    for (const DeferredFinding& f : p.deferred)
      md += fmt::format("- {} `{}` {}: {}\n", f.finding_id, CategoryId(f.category), f.title, f.reason);
  }
  return md;
}

nlohmann::ordered_json PlanToJson(const Plan& p, int schema_version) {
  nlohmann::ordered_json doc;
  doc["schema_version"] = schema_version;
  doc["kind"] = "optimization_plan";
  doc["trace"] = p.trace_path;
  doc["framework"] = p.framework;
  doc["device"] = p.device;
  doc["priority"] = PlanPriorityId(p.options.priority);
  doc["risk_tolerance"] = PlanRiskId(p.options.risk_tolerance);
  doc["step_ns"] = p.step_ns;
  doc["steps"] = nlohmann::ordered_json::array();
  for (const PlanStep& s : p.steps) {
    nlohmann::ordered_json j;
    j["number"] = s.number;
    j["finding"] = s.finding_id;
    j["category"] = CategoryId(s.category);
    j["title"] = s.title;
    j["device"] = s.device;
    j["confidence"] = s.confidence;
    j["serves_priority"] = s.serves_priority;
    j["risk"] = PlanRiskId(s.risk);
    j["risk_reason"] = s.risk_reason;
    j["gain"] = {{"low_ns", s.gain_low_ns},
                 {"high_ns", s.gain_high_ns},
                 {"low_pct", s.gain_low_pct},
                 {"high_pct", s.gain_high_pct},
                 {"method", s.gain_method}};
    j["depends_on"] = s.depends_on;
    j["dependency_note"] = s.dependency_note;
    j["changes"] = nlohmann::ordered_json::array();
    for (const Suggestion& g : s.changes) j["changes"].push_back({{"text", g.text}, {"kind", g.kind}, {"snippet", g.snippet}});
    j["validate_command"] = s.validate_command;
    doc["steps"].push_back(std::move(j));
  }
  doc["deferred"] = nlohmann::ordered_json::array();
  for (const DeferredFinding& f : p.deferred)
    doc["deferred"].push_back(
        {{"finding", f.finding_id}, {"category", CategoryId(f.category)}, {"title", f.title}, {"reason", f.reason}});
  return doc;
}

}  // namespace cprof
