// Speedscope's JSON file format (https://www.speedscope.app/file-format-schema.json).
//
//   std::string json = SpeedscopeJson(trace, {});
//
// One "evented" profile per track with slices (open/close events in ns from the window's start;
// a child that outlives its parent is closed with it, so events always nest), and one "sampled"
// profile per thread with CPU samples (stacks outermost frame first, weights as recorded).
// Frames are shared across profiles by name.
#pragma once

#include <string>

#include "export/flame/flame_tree.h"
#include "model/trace.h"

namespace cprof {

std::string SpeedscopeJson(const Trace& trace, const FlameOptions& options, const std::string& name);

}  // namespace cprof
