// The diagnosis report as JSON: the document `diagnose --format json` writes, and the tree the
// YAML writer (diagnosis_yaml.h) emits, so both forms share one schema (README, "diagnose").
//
//   nlohmann::ordered_json doc = DiagnosisToJson(diagnosis, cli::kSchemaVersion);
//
// Layout: schema_version, kind ("diagnosis"), trace, source_format, content_hash ("0x" + 16 hex
// digits), device, problem, threshold, span_ns, steps {count, mean_ns}, rules_run, notes, and
// `findings`, ranked best first, each with id ("F1"...), rank, category, rule, title, summary,
// device, confidence, confidence_terms {magnitude, support, consistency, specificity},
// cost_per_step_ns, cost_total_ns, saving_ns, saving_method, evidence {metrics [{name, value,
// unit}], events [{name, track_path, ts_ns, dur_ns, slice_id, note}]}, suggestions [{text, kind,
// snippet}]. Times are integer ns.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "analysis/diagnose/diagnose.h"

namespace cprof {

nlohmann::ordered_json DiagnosisToJson(const Diagnosis& d, int schema_version);

// "0x" followed by 16 lowercase hex digits; ParseContentHash reads it back (also without "0x").
std::string FormatContentHash(uint64_t hash);
bool ParseContentHash(const std::string& text, uint64_t* hash);

}  // namespace cprof
