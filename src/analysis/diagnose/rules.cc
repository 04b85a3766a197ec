// The rule registry (rules.h).
#include "analysis/diagnose/rules.h"

namespace cprof {

const std::vector<std::unique_ptr<Rule>>& AllRules() {
  static const std::vector<std::unique_ptr<Rule>>* const rules = [] {
    auto* v = new std::vector<std::unique_ptr<Rule>>();
    // One line per rule, alphabetical.
    return v;
  }();
  return *rules;
}

}  // namespace cprof
