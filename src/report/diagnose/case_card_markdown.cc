// Case cards as Markdown with YAML front matter (case_card_markdown.h).
#include "report/diagnose/case_card_markdown.h"

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include "report/diagnose/diagnosis_json.h"
#include "report/diagnose/diagnosis_yaml.h"

namespace cprof {
namespace {

constexpr const char* kSections[] = {"Problem", "Root cause", "Fix", "Measured gain", "Where it applies", "Risks"};

std::string MeasuredText(const CaseCard& c) {
  if (!c.measured) return "Not measured (give --before and --after to `case-card`).";
  const MeasuredGain& m = *c.measured;
  const bool ns = m.unit == "ns";
  const auto v = [&](double x) { return ns ? fmt::format("{:.3f} ms", x / 1e6) : fmt::format("{:.4g} {}", x, m.unit); };
  return fmt::format("{}: {} -> {} ({:+.1f}%, 95% interval {:+.1f}% to {:+.1f}%, p = {:.3g}): **{}**. Measured with "
                     "`cann-profiler validate --before {} --after {} --metrics {}`.",
                     m.metric, v(m.before), v(m.after), m.change_pct, m.ci_low_pct, m.ci_high_pct, m.p_value, m.verdict,
                     m.before_path, m.after_path, m.metric);
}

}  // namespace

std::string CaseCardToMarkdown(const CaseCard& c, int schema_version) {
  nlohmann::ordered_json fm;
  fm["schema_version"] = schema_version;
  fm["kind"] = "case_card";
  fm["id"] = c.id;
  fm["title"] = c.title;
  fm["categories"] = c.categories;
  fm["device"] = c.device;
  fm["framework"] = c.framework;
  fm["trace"] = c.trace;
  fm["content_hash"] = FormatContentHash(c.content_hash);
  fm["fingerprint"] = FormatContentHash(c.fingerprint);
  fm["key_metrics"] = nlohmann::ordered_json::object();
  for (const auto& [k, v] : c.key_metrics) fm["key_metrics"][k] = v;
  fm["top_ops"] = c.top_ops;
  if (c.measured) {
    const MeasuredGain& m = *c.measured;
    fm["measured"] = {{"metric", m.metric},         {"unit", m.unit},
                      {"before", m.before},         {"after", m.after},
                      {"change_pct", m.change_pct}, {"ci_low_pct", m.ci_low_pct},
                      {"ci_high_pct", m.ci_high_pct}, {"p_value", m.p_value},
                      {"verdict", m.verdict},       {"before_path", m.before_path},
                      {"after_path", m.after_path}};
  }
  std::string md = "---\n" + JsonToYaml(fm) + "---\n\n";
  md += fmt::format("# Case {}: {}\n", c.id, c.title);
  const std::string bodies[] = {c.problem, c.root_cause, c.fix, MeasuredText(c), c.applies_to, c.risks};
  for (size_t i = 0; i < std::size(kSections); ++i) {
    std::string b = bodies[i];
    while (!b.empty() && b.back() == '\n') b.pop_back();
    md += fmt::format("\n## {}\n\n{}\n", kSections[i], b);
  }
  return md;
}

StatusOr<CaseCard> ParseCaseCard(const std::string& text, const std::string& source) {
  if (!text.starts_with("---\n")) return InvalidInput("{}: not a case card (no YAML front matter)", source);
  const size_t end = text.find("\n---\n", 3);
  if (end == std::string::npos) return InvalidInput("{}: the front matter has no closing `---`", source);
  CaseCard c;
  try {
    const YAML::Node fm = YAML::Load(text.substr(4, end - 3));
    if (!fm.IsMap() || fm["kind"].as<std::string>("") != "case_card")
      return InvalidInput("{}: not a case card (kind is not case_card)", source);
    c.id = fm["id"].as<std::string>("");
    c.title = fm["title"].as<std::string>("");
    if (fm["categories"] && fm["categories"].IsSequence())
      for (const YAML::Node& n : fm["categories"]) c.categories.push_back(n.as<std::string>());
    if (c.categories.empty()) return InvalidInput("{}: the case card names no category", source);
    c.device = fm["device"].as<std::string>("");
    c.framework = fm["framework"].as<std::string>("");
    c.trace = fm["trace"].as<std::string>("");
    ParseContentHash(fm["content_hash"].as<std::string>("0"), &c.content_hash);
    if (!ParseContentHash(fm["fingerprint"].as<std::string>(""), &c.fingerprint))
      return InvalidInput("{}: fingerprint is missing or not a hash", source);
    if (fm["key_metrics"] && fm["key_metrics"].IsMap())
      for (const auto& kv : fm["key_metrics"]) c.key_metrics[kv.first.as<std::string>()] = kv.second.as<double>();
    if (fm["top_ops"] && fm["top_ops"].IsSequence())
      for (const YAML::Node& n : fm["top_ops"]) c.top_ops.push_back(n.as<std::string>());
    if (const YAML::Node m = fm["measured"]; m && m.IsMap()) {
      MeasuredGain g;
      g.metric = m["metric"].as<std::string>("");
      g.unit = m["unit"].as<std::string>("");
      g.before = m["before"].as<double>(0);
      g.after = m["after"].as<double>(0);
      g.change_pct = m["change_pct"].as<double>(0);
      g.ci_low_pct = m["ci_low_pct"].as<double>(0);
      g.ci_high_pct = m["ci_high_pct"].as<double>(0);
      g.p_value = m["p_value"].as<double>(1);
      g.verdict = m["verdict"].as<std::string>("");
      g.before_path = m["before_path"].as<std::string>("");
      g.after_path = m["after_path"].as<std::string>("");
      c.measured = g;
    }
  } catch (const YAML::Exception& e) {
    return InvalidInput("{}: front matter line {}: {}", source, e.mark.line + 2, e.msg);
  }
  // Body sections by heading.
  std::string* targets[] = {&c.problem, &c.root_cause, &c.fix, nullptr, &c.applies_to, &c.risks};
  const std::string body = text.substr(end + 5);
  for (size_t i = 0; i < std::size(kSections); ++i) {
    if (!targets[i]) continue;
    const std::string head = fmt::format("\n## {}\n\n", kSections[i]);
    const size_t at = body.find(head);
    if (at == std::string::npos) continue;
    const size_t from = at + head.size();
    size_t to = body.find("\n## ", from);
    if (to == std::string::npos) to = body.size();
    std::string s = body.substr(from, to - from);
    while (!s.empty() && s.back() == '\n') s.pop_back();
    *targets[i] = s;
  }
  return c;
}

}  // namespace cprof
