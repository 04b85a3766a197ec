// The JSON texts a stored trial holds (study_storage.h: coords, metrics, measurements, params)
// and the TrialSummary read back from a record.
//
//   rec.coords = CoordsJson(config);              // [3, null, 0.25]: null = inactive parameter
//   std::optional<Config> c = ParseCoords(rec.coords, space.size());
//   rec.metrics = MetricsJson({{"latency_ms", 12.3}});
//   TrialSummary s = Summarize(rec);              // params, metrics, measurements parsed
#pragma once

#include <map>
#include <optional>
#include <string>

#include "tune/study_storage.h"
#include "tune/tuner.h"

namespace cprof::tune {

std::string CoordsJson(const Config& c);
// nullopt when `text` is not an array of `n` numbers or nulls.
std::optional<Config> ParseCoords(const std::string& text, size_t n);

// Non-finite values are written as null.
std::string MetricsJson(const std::map<std::string, double>& m);
// The numeric fields of a JSON object text; empty for anything else.
std::map<std::string, double> ParseMetricsJson(const std::string& text);

TrialSummary Summarize(const TrialRecord& t);

// A stored trial whose JSON texts cannot be what cann-profiler wrote (a row changed by hand or by
// another program): coords not `n_params` numbers or nulls, params not an object, a complete
// trial's metrics not an object of numbers. Read anyway, it would count as a trial with no values.
Status CheckStoredTrial(const TrialRecord& t, size_t n_params);

}  // namespace cprof::tune
