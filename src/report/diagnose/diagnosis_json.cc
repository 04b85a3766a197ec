// The diagnosis report as JSON (diagnosis_json.h).
#include "report/diagnose/diagnosis_json.h"

#include <cstdlib>

#include <fmt/format.h>

namespace cprof {

using nlohmann::ordered_json;

std::string FormatContentHash(uint64_t hash) { return fmt::format("0x{:016x}", hash); }

bool ParseContentHash(const std::string& text, uint64_t* hash) {
  std::string digits = text;
  if (digits.size() > 2 && digits[0] == '0' && (digits[1] == 'x' || digits[1] == 'X')) digits = digits.substr(2);
  if (digits.empty() || digits.size() > 16) return false;
  char* end = nullptr;
  const unsigned long long v = std::strtoull(digits.c_str(), &end, 16);
  if (end == nullptr || *end != '\0') return false;
  *hash = v;
  return true;
}

namespace {

ordered_json FindingToJson(const Finding& f, size_t rank) {
  ordered_json j;
  j["id"] = fmt::format("F{}", rank);
  j["rank"] = rank;
  j["category"] = std::string(CategoryId(f.category));
  j["rule"] = f.rule;
  j["title"] = f.title;
  j["summary"] = f.summary;
  j["device"] = f.device;
  j["confidence"] = f.confidence;
  j["confidence_terms"] = {{"magnitude", f.confidence_terms.magnitude},
                           {"support", f.confidence_terms.support},
                           {"consistency", f.confidence_terms.consistency},
                           {"specificity", f.confidence_terms.specificity}};
  j["cost_per_step_ns"] = f.cost_per_step_ns;
  j["cost_total_ns"] = f.cost_total_ns;
  j["saving_ns"] = f.saving_ns;
  j["saving_method"] = f.saving_method;
  ordered_json metrics = ordered_json::array();
  for (const FindingMetric& m : f.metrics) metrics.push_back({{"name", m.name}, {"value", m.value}, {"unit", m.unit}});
  ordered_json events = ordered_json::array();
  for (const EvidenceEvent& e : f.events) {
    ordered_json ev = {{"name", e.name}, {"track_path", e.track_path}, {"ts_ns", e.ts_ns}, {"dur_ns", e.dur_ns}};
    if (e.slice_row) ev["slice_id"] = *e.slice_row;
    ev["note"] = e.note;
    events.push_back(std::move(ev));
  }
  j["evidence"] = {{"metrics", std::move(metrics)}, {"events", std::move(events)}};
  ordered_json suggestions = ordered_json::array();
  for (const Suggestion& s : f.suggestions)
    suggestions.push_back({{"text", s.text}, {"kind", s.kind}, {"snippet", s.snippet}});
  j["suggestions"] = std::move(suggestions);
  return j;
}

}  // namespace

ordered_json DiagnosisToJson(const Diagnosis& d, int schema_version) {
  ordered_json doc;
  doc["schema_version"] = schema_version;
  doc["kind"] = "diagnosis";
  doc["trace"] = d.trace_path;
  doc["source_format"] = d.source_format;
  doc["content_hash"] = FormatContentHash(d.content_hash);
  doc["device"] = std::string(DeviceKindId(d.device));
  if (!d.torch_version.empty()) doc["torch_version"] = d.torch_version;
  doc["problem"] = std::string(ProblemId(d.problem));
  doc["threshold"] = d.threshold_text;
  doc["span_ns"] = d.span_ns;
  doc["steps"] = {{"count", d.step_count}, {"mean_ns", d.step_mean_ns}};
  doc["rules_run"] = d.rules_run;
  doc["notes"] = d.notes;
  ordered_json findings = ordered_json::array();
  for (size_t i = 0; i < d.findings.size(); ++i) findings.push_back(FindingToJson(d.findings[i], i + 1));
  doc["findings"] = std::move(findings);
  return doc;
}

}  // namespace cprof
