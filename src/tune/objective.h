// Objectives: what a study optimizes, parsed from `--objective "latency_ms:min,mem_mb:min"`, and
// the Pareto front when there are several.
//
//   ASSIGN_OR_RETURN(std::vector<ObjectiveSpec> objs, ParseObjectives("latency_ms:min"));
//   double y = Scalarize(objs, metrics, weights);   // what samplers minimize
//
// A name is a metric the command prints, or with parentheses (`p99(step):min`) one the CLI reads
// from a trace of each trial (cli/tune_trace_objective.h).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"

namespace cprof::tune {

struct ObjectiveSpec {
  std::string name;
  bool maximize = false;
  bool direction_given = false;  // ":min" or ":max" was written (else minimized, or the metric's own)
};

// "name[:min|max][,name[:min|max]]...". Empty text = one objective named `fallback` (min).
StatusOr<std::vector<ObjectiveSpec>> ParseObjectives(const std::string& text, const std::string& fallback);

// "latency_ms:min,mem_mb:min": the canonical text (part of a study's fingerprint).
std::string FormatObjectives(const std::vector<ObjectiveSpec>& objs);

// The objective values of a trial's metrics, in spec order, each negated when maximized (so that
// smaller is better everywhere); nullopt when one is missing or not finite.
std::optional<std::vector<double>> Minimized(const std::vector<ObjectiveSpec>& objs,
                                             const std::map<std::string, double>& metrics);

// Indices of the non-dominated points (all objectives minimized), in input order.
std::vector<size_t> ParetoFront(const std::vector<std::vector<double>>& points);

}  // namespace cprof::tune
