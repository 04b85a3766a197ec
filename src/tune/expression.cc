// The constraint language: a tokenizer, a recursive-descent parser into a node array, and an evaluator.
#include "tune/expression.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

namespace cprof::tune {
namespace {

enum class Op {
  kNumber, kString, kSlot, kList,                  // leaves and list literals
  kNeg, kNot,                                      // unary
  kAdd, kSub, kMul, kDiv, kFloorDiv, kMod, kPow,   // arithmetic
  kAnd, kOr,                                       // short-circuit logic
  kCompare,                                        // chained comparison: children are operands
  kCall,                                           // builtin function
};
enum class Cmp { kLt, kLe, kGt, kGe, kEq, kNe, kIn, kNotIn };
enum class Fn { kMin, kMax, kAbs, kInt, kFloat, kSqrt, kLog2 };

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
    case Ev::kNum: return v.num != 0;
    case Ev::kStr: return !v.str.empty();
    case Ev::kList: return !v.list.empty();
  }
  return false;
}

Ev Num(double d) { Ev e; e.num = d; return e; }
Ev Bool(bool b) { Ev e; e.num = b ? 1 : 0; e.is_bool = true; return e; }

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

}  // namespace

struct Expression::Impl {
  std::string text;
  std::vector<Node> nodes;
  int root = -1;
  std::vector<int> slots;
};

namespace {

struct Token {
  enum Kind { kEnd, kNumber, kString, kIdent, kSym } kind = kEnd;
  std::string text;
  double number = 0;
  size_t pos = 0;
};

class Parser {
 public:
  Parser(std::string_view text, const Expression::Resolver& resolve, Expression::Impl& out)
      : text_(text), resolve_(resolve), out_(out) {}

  Status Run() {
    RETURN_IF_ERROR(Tokenize());
    ASSIGN_OR_RETURN(int root, ParseOr());
    if (tok().kind != Token::kEnd) return Error(tok().pos, fmt::format("unexpected '{}'", tok().text));
    out_.root = root;
    std::sort(out_.slots.begin(), out_.slots.end());
    out_.slots.erase(std::unique(out_.slots.begin(), out_.slots.end()), out_.slots.end());
    return Status::Ok();
  }

 private:
  Status Error(size_t pos, const std::string& why) const {
    return InvalidInput("expression \"{}\": column {}: {}", text_, pos + 1, why);
  }

  Status Tokenize() {
    size_t i = 0;
    while (i < text_.size()) {
      char c = text_[i];
      if (std::isspace(static_cast<unsigned char>(c))) { ++i; continue; }
      Token t;
      t.pos = i;
      if (std::isdigit(static_cast<unsigned char>(c)) || (c == '.' && i + 1 < text_.size() &&
                                                          std::isdigit(static_cast<unsigned char>(text_[i + 1])))) {
        size_t j = i;
        while (j < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[j])) || text_[j] == '.' ||
                                    text_[j] == '_' ||
                                    ((text_[j] == '+' || text_[j] == '-') && (text_[j - 1] == 'e' || text_[j - 1] == 'E'))))
          ++j;
        std::string digits;
        for (size_t k = i; k < j; ++k)
          if (text_[k] != '_') digits += text_[k];
        double v = 0;
        auto res = std::from_chars(digits.data(), digits.data() + digits.size(), v);
        if (res.ec != std::errc() || res.ptr != digits.data() + digits.size())
          return Error(i, fmt::format("bad number '{}'", std::string(text_.substr(i, j - i))));
        t.kind = Token::kNumber;
        t.number = v;
        t.text = std::string(text_.substr(i, j - i));
        i = j;
      } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
        size_t j = i;
        while (j < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[j])) || text_[j] == '_')) ++j;
        t.kind = Token::kIdent;
        t.text = std::string(text_.substr(i, j - i));
        i = j;
      } else if (c == '\'' || c == '"') {
        size_t j = i + 1;
        std::string s;
        while (j < text_.size() && text_[j] != c) {
          if (text_[j] == '\\' && j + 1 < text_.size()) ++j;
          s += text_[j++];
        }
        if (j >= text_.size()) return Error(i, "unterminated string");
        t.kind = Token::kString;
        t.text = std::move(s);
        i = j + 1;
      } else {
        static const char* kSyms[] = {"**", "//", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*", "/",
                                      "%",  "<",  ">",  "(",  ")",  "[",  "]",  ",",  "!"};
        bool found = false;
        for (const char* s : kSyms) {
          std::string_view sv(s);
          if (text_.substr(i, sv.size()) == sv) {
            t.kind = Token::kSym;
            t.text = std::string(sv);
            i += sv.size();
            found = true;
            break;
          }
        }
        if (!found) return Error(i, fmt::format("unexpected character '{}'", c));
      }
      tokens_.push_back(std::move(t));
    }
    Token end;
    end.pos = text_.size();
    end.text = "end of expression";
    tokens_.push_back(end);
    return Status::Ok();
  }

  const Token& tok() const { return tokens_[pos_]; }
  bool IsSym(const char* s) const { return tok().kind == Token::kSym && tok().text == s; }
  bool IsWord(const char* s) const { return tok().kind == Token::kIdent && tok().text == s; }
  Status Expect(const char* s) {
    if (!IsSym(s)) return Error(tok().pos, fmt::format("expected '{}', found '{}'", s, tok().text));
    ++pos_;
    return Status::Ok();
  }

  int Add(Node n) {
    out_.nodes.push_back(std::move(n));
    return static_cast<int>(out_.nodes.size()) - 1;
  }
  int Binary(Op op, int a, int b) {
    Node n{op};
    n.kids = {a, b};
    return Add(std::move(n));
  }

  // Depth guard: a hostile input cannot blow the stack.
  Status Enter() {
    if (++depth_ > 200) return Error(tok().pos, "expression nested too deeply");
    return Status::Ok();
  }

  StatusOr<int> ParseOr() {
    RETURN_IF_ERROR(Enter());
    ASSIGN_OR_RETURN(int lhs, ParseAnd());
    while (IsWord("or") || IsSym("||")) {
      ++pos_;
      ASSIGN_OR_RETURN(int rhs, ParseAnd());
      lhs = Binary(Op::kOr, lhs, rhs);
    }
    --depth_;
    return lhs;
  }
  StatusOr<int> ParseAnd() {
    ASSIGN_OR_RETURN(int lhs, ParseNot());
    while (IsWord("and") || IsSym("&&")) {
      ++pos_;
      ASSIGN_OR_RETURN(int rhs, ParseNot());
      lhs = Binary(Op::kAnd, lhs, rhs);
    }
    return lhs;
  }
  StatusOr<int> ParseNot() {
    if (IsWord("not") || IsSym("!")) {
      ++pos_;
      RETURN_IF_ERROR(Enter());
      ASSIGN_OR_RETURN(int x, ParseNot());
      --depth_;
      Node n{Op::kNot};
      n.kids = {x};
      return Add(std::move(n));
    }
    return ParseComparison();
  }
  std::optional<Cmp> PeekCmp() {
    if (tok().kind == Token::kSym) {
      const std::string& s = tok().text;
      if (s == "<") return Cmp::kLt;
      if (s == "<=") return Cmp::kLe;
      if (s == ">") return Cmp::kGt;
      if (s == ">=") return Cmp::kGe;
      if (s == "==") return Cmp::kEq;
      if (s == "!=") return Cmp::kNe;
    }
    if (IsWord("in")) return Cmp::kIn;
    if (IsWord("not") && pos_ + 1 < tokens_.size() && tokens_[pos_ + 1].kind == Token::kIdent &&
        tokens_[pos_ + 1].text == "in")
      return Cmp::kNotIn;
    return std::nullopt;
  }
  StatusOr<int> ParseComparison() {
    ASSIGN_OR_RETURN(int first, ParseSum());
    std::optional<Cmp> cmp = PeekCmp();
    if (!cmp) return first;
    Node n{Op::kCompare};
    n.kids.push_back(first);
    while ((cmp = PeekCmp())) {
      pos_ += (*cmp == Cmp::kNotIn) ? 2 : 1;
      ASSIGN_OR_RETURN(int rhs, ParseSum());
      n.cmps.push_back(*cmp);
      n.kids.push_back(rhs);
    }
    return Add(std::move(n));
  }
  StatusOr<int> ParseSum() {
    ASSIGN_OR_RETURN(int lhs, ParseTerm());
    while (IsSym("+") || IsSym("-")) {
      Op op = IsSym("+") ? Op::kAdd : Op::kSub;
      ++pos_;
      ASSIGN_OR_RETURN(int rhs, ParseTerm());
      lhs = Binary(op, lhs, rhs);
    }
    return lhs;
  }
  StatusOr<int> ParseTerm() {
    ASSIGN_OR_RETURN(int lhs, ParseUnary());
    for (;;) {
      Op op;
      if (IsSym("*")) op = Op::kMul;
      else if (IsSym("/")) op = Op::kDiv;
      else if (IsSym("//")) op = Op::kFloorDiv;
      else if (IsSym("%")) op = Op::kMod;
      else break;
      ++pos_;
      ASSIGN_OR_RETURN(int rhs, ParseUnary());
      lhs = Binary(op, lhs, rhs);
    }
    return lhs;
  }
  StatusOr<int> ParseUnary() {
    if (IsSym("-") || IsSym("+")) {
      bool neg = IsSym("-");
      ++pos_;
      RETURN_IF_ERROR(Enter());
      ASSIGN_OR_RETURN(int x, ParseUnary());
      --depth_;
      if (!neg) return x;
      Node n{Op::kNeg};
      n.kids = {x};
      return Add(std::move(n));
    }
    return ParsePower();
  }
  StatusOr<int> ParsePower() {
    ASSIGN_OR_RETURN(int base, ParsePrimary());
    if (IsSym("**")) {
      ++pos_;
      RETURN_IF_ERROR(Enter());
      ASSIGN_OR_RETURN(int exp, ParseUnary());  // right-associative, binds tighter than unary on the left
      --depth_;
      return Binary(Op::kPow, base, exp);
    }
    return base;
  }
  StatusOr<int> ParseList(const char* close) {
    Node n{Op::kList};
    while (!IsSym(close)) {
      ASSIGN_OR_RETURN(int item, ParseOr());
      n.kids.push_back(item);
      if (IsSym(",")) { ++pos_; continue; }
      if (!IsSym(close)) return Error(tok().pos, fmt::format("expected ',' or '{}'", close));
    }
    ++pos_;
    return Add(std::move(n));
  }
  StatusOr<int> ParsePrimary() {
    const Token t = tok();
    if (t.kind == Token::kNumber) {
      ++pos_;
      Node n{Op::kNumber};
      n.number = t.number;
      return Add(std::move(n));
    }
    if (t.kind == Token::kString) {
      ++pos_;
      Node n{Op::kString};
      n.str = t.text;
      return Add(std::move(n));
    }
    if (IsSym("(")) {
      ++pos_;
      RETURN_IF_ERROR(Enter());
      ASSIGN_OR_RETURN(int first, ParseOr());
      if (IsSym(",")) {  // a tuple: (a, b, ...)
        ++pos_;
        ASSIGN_OR_RETURN(int rest, ParseList(")"));
        out_.nodes[rest].kids.insert(out_.nodes[rest].kids.begin(), first);
        --depth_;
        return rest;
      }
      RETURN_IF_ERROR(Expect(")"));
      --depth_;
      return first;
    }
    if (IsSym("[")) {
      ++pos_;
      RETURN_IF_ERROR(Enter());
      ASSIGN_OR_RETURN(int list, ParseList("]"));
      --depth_;
      return list;
    }
    if (t.kind == Token::kIdent) {
      ++pos_;
      if (t.text == "True" || t.text == "true") { Node n{Op::kNumber}; n.number = 1; return Add(std::move(n)); }
      if (t.text == "False" || t.text == "false") { Node n{Op::kNumber}; n.number = 0; return Add(std::move(n)); }
      if (IsSym("(")) {
        static const std::pair<const char*, Fn> kFns[] = {{"min", Fn::kMin},     {"max", Fn::kMax},
                                                          {"abs", Fn::kAbs},     {"int", Fn::kInt},
                                                          {"float", Fn::kFloat}, {"sqrt", Fn::kSqrt},
                                                          {"log2", Fn::kLog2}};
        const Fn* fn = nullptr;
        for (const auto& [name, f] : kFns)
          if (t.text == name) fn = &f;
        if (!fn) return Error(t.pos, fmt::format("unknown function '{}'", t.text));
        ++pos_;
        RETURN_IF_ERROR(Enter());
        ASSIGN_OR_RETURN(int args, ParseList(")"));
        --depth_;
        Node& list = out_.nodes[args];
        size_t nargs = list.kids.size();
        bool variadic = *fn == Fn::kMin || *fn == Fn::kMax;
        if (variadic ? nargs == 0 : nargs != 1)
          return Error(t.pos, fmt::format("{}() takes {} argument(s)", t.text, variadic ? "1 or more" : "1"));
        list.op = Op::kCall;
        list.fn = *fn;
        return args;
      }
      std::optional<int> slot = resolve_(t.text);
      if (!slot) return Error(t.pos, fmt::format("unknown parameter '{}'", t.text));
      Node n{Op::kSlot};
      n.slot = *slot;
      n.str = t.text;
      out_.slots.push_back(*slot);
      return Add(std::move(n));
    }
    return Error(t.pos, fmt::format("unexpected '{}'", t.text));
  }

  std::string_view text_;
  const Expression::Resolver& resolve_;
  Expression::Impl& out_;
  std::vector<Token> tokens_;
  size_t pos_ = 0;
  int depth_ = 0;
};

class Evaluator {
 public:
  Evaluator(const Expression::Impl& impl, std::span<const Value> slots) : impl_(impl), slots_(slots) {}

  StatusOr<Ev> Eval(int idx) const {
    const Node& n = impl_.nodes[idx];
    switch (n.op) {
      case Op::kNumber: return Num(n.number);
      case Op::kString: { Ev e; e.kind = Ev::kStr; e.str = n.str; return e; }
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
      case Op::kCall: return Call(n);
      default: return Arith(n);
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
      case Op::kAdd: return Num(x + y);
      case Op::kSub: return Num(x - y);
      case Op::kMul: return Num(x * y);
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
      default: return Fail("internal: bad operator");
    }
  }

  StatusOr<bool> Compare(Cmp c, const Ev& a, const Ev& b) const {
    if (c == Cmp::kIn || c == Cmp::kNotIn) {
      bool found = false;
      if (b.kind == Ev::kList) {
        for (const Ev& item : b.list)
          if (Equal(a, item)) { found = true; break; }
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
    if (a.kind == Ev::kNum && b.kind == Ev::kNum) order = a.num < b.num ? -1 : (a.num > b.num ? 1 : 0);
    else if (a.kind == Ev::kStr && b.kind == Ev::kStr) order = a.str.compare(b.str);
    else return Fail("cannot order a string and a number");
    switch (c) {
      case Cmp::kLt: return order < 0;
      case Cmp::kLe: return order <= 0;
      case Cmp::kGt: return order > 0;
      case Cmp::kGe: return order >= 0;
      default: return false;
    }
  }

  static bool Equal(const Ev& a, const Ev& b) {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case Ev::kNum: return a.num == b.num;
      case Ev::kStr: return a.str == b.str;
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
      case Fn::kAbs: return Num(std::fabs(x));
      case Fn::kInt: return Num(std::trunc(x));
      case Fn::kFloat: return Num(x);
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
  Parser parser(impl->text, resolve, *impl);
  RETURN_IF_ERROR(parser.Run());
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
    case Ev::kStr: return Value{v.str};
    case Ev::kList: break;
  }
  return InvalidInput("expression \"{}\": evaluates to a list, not a value", impl_->text);
}

const std::string& Expression::text() const { return impl_->text; }
const std::vector<int>& Expression::slots() const { return impl_->slots; }

}  // namespace cprof::tune
