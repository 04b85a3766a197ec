// Loading a search space from a file: our YAML, a Kernel Tuner cache file (its `tune_params` and
// `restrictions`), a T4 / benchmark-hub space (`ConfigurationSpace`), or T4 results (`results`:
// each parameter's values are those its results hold).
//
//   ASSIGN_OR_RETURN(SpaceFile f, LoadSpaceFile("space.yaml"));
//   f.space.size(); f.env;  // environment templates: {"OMP_NUM_THREADS", "{threads}"}
//
// The YAML form:
//   parameters:
//     - {name: threads, type: int, low: 1, high: 8, default: 4}            # step: 2, log: true
//     - {name: lr, type: float, low: 1.0e-4, high: 0.1, log: true}
//     - {name: memory_format, type: categorical, values: [contiguous, channels_last]}
//     - {name: block, type: ordinal, values: [16, 32, 64, 128], default: 32}
//     - {name: momentum, type: float, low: 0, high: 0.99, condition: "optimizer == 'sgd'"}
//   constraints:
//     - "block * threads <= 256"
//   env:
//     OMP_NUM_THREADS: "{threads}"
// `parameters` may also be a mapping from name to the same fields.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "tune/search_space.h"

namespace cprof::tune {

struct SpaceFile {
  SearchSpace space;
  std::vector<std::pair<std::string, std::string>> env;  // name -> template with {param}
  std::string format;                                    // "yaml", "kernel_tuner", "t4"
  // YAML `fixes:` per parameter: finding category id -> {parameter -> the value that addresses a
  // finding of that category} (e.g. layout_conversion -> memory_format: channels_last). Read by
  // `tune --from_diagnosis` to build the guided first configuration.
  std::map<std::string, std::map<std::string, Value>> fixes;
  // Where each category was first named ("line 4"), for an error about it; empty for spaces that
  // did not come from a file.
  std::map<std::string, std::string> fix_where;
  // What the reader left out and why, for the caller to print: a Kernel Tuner restriction the
  // expression language cannot read (a Python lambda) is dropped rather than refusing the cache.
  std::vector<std::string> warnings;
};

// Chooses the reader by content: JSON with `tune_params` (Kernel Tuner), JSON with
// `ConfigurationSpace` (T4) or `results` (T4 results), anything else is read as YAML. Gzip is
// undone first.
StatusOr<SpaceFile> LoadSpaceFile(const std::string& path);

// The YAML reader on text; `origin` names the file in error messages.
StatusOr<SpaceFile> ParseSpaceYaml(std::string_view text, const std::string& origin);

// The JSON readers on text (Kernel Tuner cache, T4 space or T4 results).
StatusOr<SpaceFile> ParseSpaceJson(std::string_view text, const std::string& origin);

}  // namespace cprof::tune
