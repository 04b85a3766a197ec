// Small helpers that turn model values into JSON for the commands' machine-readable outputs.
#pragma once

#include <nlohmann/json.hpp>

#include "model/trace.h"

namespace cprof::cli {

// A metadata or arg value as JSON. Strings holding a JSON object or array (device properties,
// distributed info) are embedded as parsed JSON.
nlohmann::ordered_json ValueToJson(const Trace& trace, const Value& v);

// Every metadata row as one object (a later row with the same key wins).
nlohmann::ordered_json MetadataToJson(const Trace& trace);

// Non-zero import stats: [{name, severity, count, description}].
nlohmann::ordered_json ImportStatsToJson(const ImportStats& stats);

}  // namespace cprof::cli
