// Folded stacks ("a;b;c 42" per line), the input of flamegraph.pl, inferno and speedscope.
//
//   std::string text = FoldedStacks(BuildSampleFlameTree(trace, {.by_track = true}));
//
// One line per node with a positive self value: the path from the root's child down to the
// node, then its self value (ns for time trees, sample weight for sample trees). Frame names
// have ';' replaced by ':' and line breaks by spaces, since both delimit the format.
#pragma once

#include <string>

#include "export/flame/flame_tree.h"

namespace cprof {

std::string FoldedStacks(const FlameTree& tree);

}  // namespace cprof
