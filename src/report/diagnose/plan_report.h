// The optimization plan (analysis/diagnose/plan.h) as Markdown (`generate-plan`'s default,
// optimization_plan.md) and as JSON (`--format json`).
//
//   std::string md = PlanToMarkdown(plan);
//   nlohmann::ordered_json doc = PlanToJson(plan, cli::kSchemaVersion);
//
// JSON layout: schema_version, kind ("optimization_plan"), trace, framework, device, priority,
// risk_tolerance, step_ns, steps [{number, finding, category, title, device, confidence,
// serves_priority, risk, risk_reason, gain {low_ns, high_ns, low_pct, high_pct, method},
// depends_on [numbers], dependency_note, changes [{text, kind, snippet}], validate_command}],
// deferred [{finding, category, title, reason}]. Times are integer ns per step.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/diagnose/plan.h"

namespace cprof {

std::string PlanToMarkdown(const Plan& plan);
nlohmann::ordered_json PlanToJson(const Plan& plan, int schema_version);

}  // namespace cprof
