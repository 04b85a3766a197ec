// The one writer (and reader) of runtime_adjustment.yaml, for `recommend-runtime` and `tune`.
//
//   std::string text = RuntimeAdjustmentToYaml(adjustment, cli::kSchemaVersion);
//   ASSIGN_OR_RETURN(RuntimeAdjustment back, ParseRuntimeAdjustment(text, "runtime_adjustment.yaml"));
//
// Layout (README, "recommend-runtime"): schema_version, kind ("runtime_adjustment"), producer,
// source {trace, content_hash ("0x" + 16 hex digits), diagnosis}, device, then the sections
// threads, env, allocator, batch, framework — always present, each a map from a setting's name to
// {value, reason} — and notes. Values: integers and booleans as such, everything in `env` and
// `allocator` as strings (they are environment variables).
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "analysis/diagnose/runtime_adjustment.h"
#include "base/status.h"

namespace cprof {

nlohmann::ordered_json RuntimeAdjustmentToJson(const RuntimeAdjustment& a, int schema_version);
std::string RuntimeAdjustmentToYaml(const RuntimeAdjustment& a, int schema_version);
// Reads YAML or JSON back; kInvalidInput naming `source` when it is not a runtime adjustment.
StatusOr<RuntimeAdjustment> ParseRuntimeAdjustment(const std::string& text, const std::string& source);

}  // namespace cprof
