// Reading Kernel Tuner cache files: the parameter lists (for spaces) and the measured records
// (for the replay evaluator only — samplers never see them).
//
//   ASSIGN_OR_RETURN(KernelTunerCache c, ReadKernelTunerCache("gemm.json.gz", /*with_records=*/true));
//   c.tune_params[0].first == "MWG";  c.records[i].objective  // mean of `times`, ms
//
// Format: {"tune_params_keys": [...], "tune_params": {name: [values]}, "restrictions": [...]?,
// "cache": {"v1,v2,...": {name: value, ..., "time": t | "ErrorString", "times": [...]}}}.
// The objective of a record is the mean of `times` (some files overwrote `time`); a record whose
// `time` is a string (CompilationFailedConfig, RuntimeFailedConfig, ...) failed with that reason;
// so did one whose `time` is 1e20 (older Kernel Tuner versions), negative, or NaN (Python writes
// NaN and Infinity tokens, read here as null).
// The file's `objective` (Kernel Tuner writes it; "time" when absent) names what a record's value
// is: another metric ("GFLOP/s", "energy") is read from the record's own key, a record whose
// `time` is an error string failed whatever the objective. Its direction is the file's
// `objective_higher_is_better`, else Kernel Tuner's default for the name (HigherIsBetter).
// A file cut off before its closing braces (Kernel Tuner appends as it goes) is read as complete.
// T4 results ({"results": [{"configuration", "times": {"runtimes"}, "measurements", "invalidity"}]},
// Kernel Tuner's output file) read the same way: the parameter lists are the values the results
// hold, a result that broke the restrictions ("constraints") is absent, other invalid ones failed.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "tune/value.h"

namespace cprof::tune {

struct KernelTunerRecord {
  std::vector<Value> values;        // in tune_params_keys order
  std::optional<double> objective;  // the objective's value (time: mean of `times`); nullopt when failed
  std::vector<double> times;
  std::string error;                // the failure reason when failed
};

struct KernelTunerCache {
  std::vector<std::pair<std::string, std::vector<Value>>> tune_params;  // in tune_params_keys order
  std::vector<std::string> restrictions;  // expressions; empty when the file has none
  std::vector<KernelTunerRecord> records;  // only when read with_records
  std::string objective = "time";          // the metric each record's objective is
  std::optional<bool> higher_is_better = false;  // nullopt: neither the file nor the name says
};

// Kernel Tuner's defaults for the objectives it knows (time and energy lower, rates higher);
// nullopt for any other name.
std::optional<bool> HigherIsBetter(std::string_view objective);

StatusOr<KernelTunerCache> ReadKernelTunerCache(const std::string& path, bool with_records);
StatusOr<KernelTunerCache> ParseKernelTunerCache(std::string_view text, const std::string& origin,
                                                 bool with_records);

}  // namespace cprof::tune
