// Expands the run arguments of `validate` (--before/--after) into trace paths: a trace file, a
// trace folder (torch_npu *_ascend_pt, msprof PROF_*), a folder of repeated runs (every trace
// in it, sorted by name, one run each), or a comma-separated list of any of these.
//
//   ASSIGN_OR_RETURN(std::vector<std::string> runs, ExpandRunPaths("runs/base/"));
#pragma once

#include <string>
#include <vector>

#include "base/status.h"

namespace cprof::cli {

// kInvalidInput when an entry does not exist, a folder holds no recognizable trace, or a file in
// it named like a trace (.json, .json.gz, .pb, .sqlite, ...) is not one: a broken run is not dropped.
StatusOr<std::vector<std::string>> ExpandRunPaths(const std::string& spec);

}  // namespace cprof::cli
