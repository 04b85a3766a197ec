// The constraint language's evaluator over the parsed node array (expression_tree.h), and the
// Expression API; the parser is in expression_parser.cc.
#include "tune/expression.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "tune/expression_tree.h"

namespace cprof::tune {
namespace {

using expression_internal::Cmp;
using expression_internal::Fn;
using expression_internal::Node;
using expression_internal::Op;

// A runtime value: number (bool is 0/1 with is_bool), string, or list.
struct Ev {
  enum Kind { kNum, kStr, kList } kind = kNum;
  bool is_bool = false;
  double num = 0;
  std::string str;
  std::vector<Ev> list;
};

bool Truthy(const Ev& v) {
  switch (v.kind) {
    case Ev::kNum:
      return v.num != 0;
    case Ev::kStr:
      return !v.str.empty();
    case Ev::kList:
      return !v.list.empty();
  }
  return false;
}

Ev Num(double d) {
  Ev e;
  e.num = d;
  return e;
}
Ev Bool(bool b) {
  Ev e;
  e.num = b ? 1 : 0;
  e.is_bool = true;
  return e;
}

class Evaluator {
 public:
  Evaluator(const Expression::Impl& impl, std::span<const Value> slots) : impl_(impl), slots_(slots) {}

  StatusOr<Ev> Eval(int idx) const {
    const Node& n = impl_.nodes[idx];
    switch (n.op) {
      case Op::kNumber:
        return Num(n.number);
      case Op::kString: {
        Ev e;
        e.kind = Ev::kStr;
        e.str = n.str;
        return e;
      }
      case Op::kSlot: {
        if (n.slot < 0 || static_cast<size_t>(n.slot) >= slots_.size() || !IsActive(slots_[n.slot]))
          return Fail(fmt::format("parameter '{}' is not active", n.str));
        const Value& v = slots_[n.slot];
        if (auto d = AsNumber(v)) return Num(*d);
        Ev e;
        e.kind = Ev::kStr;
        e.str = std::get<std::string>(v);
        return e;
      }
      case Op::kList: {
        Ev e;
        e.kind = Ev::kList;
        for (int k : n.kids) {
          ASSIGN_OR_RETURN(Ev item, Eval(k));
          e.list.push_back(std::move(item));
        }
        return e;
      }
      case Op::kNeg: {
        ASSIGN_OR_RETURN(Ev x, Eval(n.kids[0]));
        if (x.kind != Ev::kNum) return Fail("unary '-' needs a number");
        return Num(-x.num);
      }
      case Op::kNot: {
        ASSIGN_OR_RETURN(Ev x, Eval(n.kids[0]));
        return Bool(!Truthy(x));
      }
      case Op::kAnd: {
        ASSIGN_OR_RETURN(Ev a, Eval(n.kids[0]));
        if (!Truthy(a)) return a;
        return Eval(n.kids[1]);
      }
      case Op::kOr: {
        ASSIGN_OR_RETURN(Ev a, Eval(n.kids[0]));
        if (Truthy(a)) return a;
        return Eval(n.kids[1]);
      }
      case Op::kCompare: {
        ASSIGN_OR_RETURN(Ev lhs, Eval(n.kids[0]));
        for (size_t i = 0; i < n.cmps.size(); ++i) {
          ASSIGN_OR_RETURN(Ev rhs, Eval(n.kids[i + 1]));
          ASSIGN_OR_RETURN(bool holds, Compare(n.cmps[i], lhs, rhs));
          if (!holds) return Bool(false);
          lhs = std::move(rhs);
        }
        return Bool(true);
      }
      case Op::kCall:
        return Call(n);
      default:
        return Arith(n);
    }
  }

 private:
  Status Fail(const std::string& why) const { return InvalidInput("expression \"{}\": {}", impl_.text, why); }

  StatusOr<Ev> Arith(const Node& n) const {
    ASSIGN_OR_RETURN(Ev a, Eval(n.kids[0]));
    ASSIGN_OR_RETURN(Ev b, Eval(n.kids[1]));
    if (n.op == Op::kAdd && a.kind == Ev::kStr && b.kind == Ev::kStr) {
      Ev e;
      e.kind = Ev::kStr;
      e.str = a.str + b.str;
      return e;
    }
    if (a.kind != Ev::kNum || b.kind != Ev::kNum) return Fail("arithmetic needs numbers");
    double x = a.num, y = b.num;
    switch (n.op) {
      case Op::kAdd:
        return Num(x + y);
      case Op::kSub:
        return Num(x - y);
      case Op::kMul:
        return Num(x * y);
      case Op::kDiv:
        if (y == 0) return Fail("division by zero");
        return Num(x / y);
      case Op::kFloorDiv:
        if (y == 0) return Fail("division by zero");
        return Num(std::floor(x / y));
      case Op::kMod:  // Python semantics: the result has the sign of the divisor
        if (y == 0) return Fail("modulo by zero");
        return Num(x - y * std::floor(x / y));
      case Op::kPow: {
        double r = std::pow(x, y);
        if (!std::isfinite(r)) return Fail("power out of range");
        return Num(r);
      }
      default:
        return Fail("internal: bad operator");
    }
  }

  StatusOr<bool> Compare(Cmp c, const Ev& a, const Ev& b) const {
    if (c == Cmp::kIn || c == Cmp::kNotIn) {
      bool found = false;
      if (b.kind == Ev::kList) {
        for (const Ev& item : b.list)
          if (Equal(a, item)) {
            found = true;
            break;
          }
      } else if (b.kind == Ev::kStr && a.kind == Ev::kStr) {
        found = b.str.find(a.str) != std::string::npos;
      } else {
        return Fail("'in' needs a list or a string on its right");
      }
      return c == Cmp::kIn ? found : !found;
    }
    if (c == Cmp::kEq) return Equal(a, b);
    if (c == Cmp::kNe) return !Equal(a, b);
    int order;
    if (a.kind == Ev::kNum && b.kind == Ev::kNum)
      order = a.num < b.num ? -1 : (a.num > b.num ? 1 : 0);
    else if (a.kind == Ev::kStr && b.kind == Ev::kStr)
      order = a.str.compare(b.str);
    else
      return Fail("cannot order a string and a number");
    switch (c) {
      case Cmp::kLt:
        return order < 0;
      case Cmp::kLe:
        return order <= 0;
      case Cmp::kGt:
        return order > 0;
      case Cmp::kGe:
        return order >= 0;
      default:
        return false;
    }
  }

  static bool Equal(const Ev& a, const Ev& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case Ev::kNum:
        return a.num == b.num;
      case Ev::kStr:
        return a.str == b.str;
      case Ev::kList:
        if (a.list.size() != b.list.size()) return false;
        for (size_t i = 0; i < a.list.size(); ++i)
          if (!Equal(a.list[i], b.list[i])) return false;
        return true;
    }
    return false;
  }

  StatusOr<Ev> Call(const Node& n) const {
    std::vector<Ev> args;
    for (int k : n.kids) {
      ASSIGN_OR_RETURN(Ev a, Eval(k));
      args.push_back(std::move(a));
    }
    if ((n.fn == Fn::kMin || n.fn == Fn::kMax) && args.size() == 1 && args[0].kind == Ev::kList) {
      std::vector<Ev> items = std::move(args[0].list);
      args = std::move(items);
      if (args.empty()) return Fail("min()/max() of an empty list");
    }
    for (const Ev& a : args)
      if (a.kind != Ev::kNum) return Fail("function arguments must be numbers");
    double x = args[0].num;
    switch (n.fn) {
      case Fn::kMin:
        for (const Ev& a : args) x = std::min(x, a.num);
        return Num(x);
      case Fn::kMax:
        for (const Ev& a : args) x = std::max(x, a.num);
        return Num(x);
      case Fn::kAbs:
        return Num(std::fabs(x));
      case Fn::kInt:
        return Num(std::trunc(x));
      case Fn::kFloat:
        return Num(x);
      case Fn::kSqrt:
        if (x < 0) return Fail("sqrt of a negative number");
        return Num(std::sqrt(x));
      case Fn::kLog2:
        if (x <= 0) return Fail("log2 of a non-positive number");
        return Num(std::log2(x));
    }
    return Fail("internal: bad function");
  }

  const Expression::Impl& impl_;
  std::span<const Value> slots_;
};

}  // namespace

StatusOr<Expression> Expression::Parse(std::string_view text, const Resolver& resolve) {
  auto impl = std::make_shared<Impl>();
  impl->text = std::string(text);
  RETURN_IF_ERROR(ParseExpressionInto(impl->text, resolve, impl.get()));
  return Expression(std::move(impl));
}

StatusOr<bool> Expression::EvaluateBool(std::span<const Value> slots) const {
  Evaluator ev(*impl_, slots);
  ASSIGN_OR_RETURN(Ev v, ev.Eval(impl_->root));
  return Truthy(v);
}

StatusOr<Value> Expression::Evaluate(std::span<const Value> slots) const {
  Evaluator ev(*impl_, slots);
  ASSIGN_OR_RETURN(Ev v, ev.Eval(impl_->root));
  switch (v.kind) {
    case Ev::kNum:
      if (v.is_bool || (std::trunc(v.num) == v.num && std::fabs(v.num) < 9.0e15))
        return Value{static_cast<int64_t>(v.num)};
      return Value{v.num};
    case Ev::kStr:
      return Value{v.str};
    case Ev::kList:
      break;
  }
  return InvalidInput("expression \"{}\": evaluates to a list, not a value", impl_->text);
}

const std::string& Expression::text() const { return impl_->text; }
const std::vector<int>& Expression::slots() const { return impl_->slots; }

}  // namespace cprof::tune
