// A small, safe expression language for constraints and conditions over tuning parameters.
//
//   ASSIGN_OR_RETURN(Expression e, Expression::Parse("block_x * block_y <= 1024 and tile in [1, 2, 4]",
//                                                    resolve));
//   ASSIGN_OR_RETURN(bool ok, e.EvaluateBool(values));   // values indexed by resolve()'s slots
//
// Python-like syntax (Kernel Tuner writes its restrictions in Python): numbers, 'strings' and
// "strings", True/False, [lists] and (tuples), + - * / // % **, unary -, comparisons (chained:
// `1 <= x < 8`), `in` / `not in`, and/or/not (also && || !), min() max() abs() int() float() sqrt()
// log2(). Nothing else: no attribute access, no calls beyond those, no loops, so evaluation always
// terminates and cannot touch the process. Errors (division by zero, comparing a string with a
// number, using an inactive parameter) are values, never exceptions or crashes.
// An Expression is immutable after Parse and may be evaluated from several threads at once.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/status.h"
#include "tune/value.h"

namespace cprof::tune {

class Expression {
 public:
  // Maps an identifier to its slot in the values passed to Evaluate; nullopt = unknown name.
  using Resolver = std::function<std::optional<int>(std::string_view name)>;

  // Parses `text`. Unknown identifiers and syntax errors are kInvalidInput naming the column.
  static StatusOr<Expression> Parse(std::string_view text, const Resolver& resolve);

  // Evaluates against slot values; the result is truthy/falsy as in Python.
  StatusOr<bool> EvaluateBool(std::span<const Value> slots) const;
  // Evaluates to a number, string or bool (as int 0/1); lists are an error at top level.
  StatusOr<Value> Evaluate(std::span<const Value> slots) const;

  const std::string& text() const;
  // Slots this expression reads, sorted, without duplicates.
  const std::vector<int>& slots() const;

  struct Impl;  // the parsed tree, defined in expression_tree.h

 private:
  explicit Expression(std::shared_ptr<const Impl> impl) : impl_(std::move(impl)) {}
  std::shared_ptr<const Impl> impl_;  // immutable, shared by copies
};

}  // namespace cprof::tune
