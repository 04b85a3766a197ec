// The parsed form of a constraint expression, shared by its parser (expression_parser.cc) and
// its evaluator (expression.cc): a node array with child indices, root and the parameter slots
// it reads. Internal to src/tune; use expression.h.
//
//   Expression::Impl impl;
//   RETURN_IF_ERROR(ParseExpressionInto(text, resolve, &impl));   // impl.nodes[impl.root] ...
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tune/expression.h"

namespace cprof::tune {
namespace expression_internal {

enum class Op {
  kNumber,
  kString,
  kSlot,
  kList,  // leaves and list literals
  kNeg,
  kNot,  // unary
  kAdd,
  kSub,
  kMul,
  kDiv,
  kFloorDiv,
  kMod,
  kPow,  // arithmetic
  kAnd,
  kOr,       // short-circuit logic
  kCompare,  // chained comparison: children are operands
  kCall,     // builtin function
};
enum class Cmp { kLt, kLe, kGt, kGe, kEq, kNe, kIn, kNotIn };
enum class Fn { kMin, kMax, kAbs, kInt, kFloat, kSqrt, kLog2 };

struct Node {
  explicit Node(Op o) : op(o) {}
  Op op;
  double number = 0;
  std::string str;
  int slot = -1;
  Fn fn = Fn::kMin;
  std::vector<int> kids;  // child node indices
  std::vector<Cmp> cmps;  // for kCompare: cmps[i] relates kids[i] and kids[i+1]
};

}  // namespace expression_internal

struct Expression::Impl {
  std::string text;
  std::vector<expression_internal::Node> nodes;
  int root = -1;
  std::vector<int> slots;  // parameter slots read, sorted, unique
};

// Parses `text` into `out` (whose `text` must already hold it, for error messages). The error
// names the expression and the column.
Status ParseExpressionInto(std::string_view text, const Expression::Resolver& resolve, Expression::Impl* out);

}  // namespace cprof::tune
