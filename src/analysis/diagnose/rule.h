// The Rule interface: one rule per file (rules/<category>_rule.cc), one registry (rules.h).
//
//   class LaunchOverheadRule final : public Rule {
//    public:
//     std::string_view name() const override { return "launch_overhead"; }
//     void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const override;
//   };
//
// A rule reads the trace through the context (which computes shared analyses once), and appends
// zero or more findings. It must not special-case workload or operator names beyond the generic
// vocabulary of a framework (aten::copy_, TransData, nccl, HCCL, ...): hidden test traces check
// that rules generalize. A rule that does not apply to the trace (no device, no memory events)
// appends nothing. A rule sets every Finding field except `rule` (set by the runner).
#pragma once

#include <string_view>
#include <vector>

#include "analysis/diagnose/finding.h"

namespace cprof {

class DiagnosisContext;

class Rule {
 public:
  virtual ~Rule() = default;
  // Stable name, usually the category id; two rules may share a category (GPU and NPU variants).
  virtual std::string_view name() const = 0;
  virtual void Run(const DiagnosisContext& ctx, std::vector<Finding>& out) const = 0;
};

}  // namespace cprof
