// The rule registry: every rule the diagnosis runs, in one list (rules.cc). A rule file defines
// its class in an anonymous namespace and exports one factory declared here.
//
//   for (const std::unique_ptr<Rule>& r : AllRules()) r->Run(ctx, findings);
#pragma once

#include <memory>
#include <vector>

#include "analysis/diagnose/rule.h"

namespace cprof {

const std::vector<std::unique_ptr<Rule>>& AllRules();

// Factories, one per rule file in rules/ (keep alphabetical; one line each).

}  // namespace cprof
