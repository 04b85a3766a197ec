// Renders a ValidationResult (analysis/compare/validation.h) as JSON, Markdown or HTML. The PDF
// is the HTML printed by a browser (pdf_renderer.h).
//
//   nlohmann::ordered_json body = ValidationJson(result);   // the CLI adds schema_version
//   std::string md = ValidationMarkdown(result);
//
// JSON layout (every field documented in docs/validate.md): `verdict` and `metrics`, each metric
// with name, unit, better, statistic, before, after, before_ci, after_ci, change_pct, ci (of
// change_pct), p_value (Holm-adjusted; the verdict uses it), p_value_raw, effect_size (Cliff's
// delta) and effect_size_magnitude, hodges_lehmann (after - before, in the unit), n_before,
// n_after, verdict, reason, test_detail, outliers, warnings and the samples used.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/compare/validation.h"

namespace cprof {

nlohmann::ordered_json ValidationJson(const ValidationResult& result);
std::string ValidationMarkdown(const ValidationResult& result);
std::string ValidationHtml(const ValidationResult& result);

}  // namespace cprof
