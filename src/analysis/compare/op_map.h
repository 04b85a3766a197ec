// Maps operator names of one trace onto names of another, for comparisons across hardware or
// frameworks (CUDA kernel names vs Ascend op types, aten:: vs npu:: ops): `compare --op-map FILE`.
//
//   ASSIGN_OR_RETURN(OpMap map, OpMap::Parse(file_text, "ops.map"));
//   std::string key = map.Apply(OpMap::Side::kBaseline, "volta_sgemm_128x64_nn");   // "MatMul"
//
// The file is one rule per line, first match wins, `#` starts a comment:
//
//   .*gemm.*            => MatMul          # both sides
//   baseline: .*nccl.*  => AllReduce       # only names of the baseline trace
//   target:   hcom_allReduce.* => AllReduce
//
// A pattern is an ECMAScript regular expression that must match the whole name. A name no rule
// matches keeps its own name. Matching runs once per distinct name (cached by the caller).
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"

namespace cprof {

class OpMap {
 public:
  enum class Side { kBaseline, kTarget };

  // kInvalidInput names `source`, the line and the reason (bad regex, missing "=>").
  static StatusOr<OpMap> Parse(std::string_view text, const std::string& source);

  // The canonical name of `name` on `side`; `name` itself when no rule matches.
  std::string Apply(Side side, std::string_view name) const;
  bool empty() const { return rules_.empty(); }
  size_t size() const { return rules_.size(); }

 private:
  struct Rule {
    bool baseline = true;
    bool target = true;
    std::string pattern;
    std::regex regex;
    std::string name;
  };
  std::vector<Rule> rules_;
};

}  // namespace cprof
