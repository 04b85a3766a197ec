// The constraint language's tokenizer and recursive-descent parser into a node array
// (expression_tree.h).
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>

#include "tune/expression_tree.h"

namespace cprof::tune {
namespace {

using expression_internal::Cmp;
using expression_internal::Fn;
using expression_internal::Node;
using expression_internal::Op;

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
      if (std::isspace(static_cast<unsigned char>(c))) {
        ++i;
        continue;
      }
      Token t;
      t.pos = i;
      if (std::isdigit(static_cast<unsigned char>(c)) ||
          (c == '.' && i + 1 < text_.size() && std::isdigit(static_cast<unsigned char>(text_[i + 1])))) {
        size_t j = i;
        while (j < text_.size() &&
               (std::isalnum(static_cast<unsigned char>(text_[j])) || text_[j] == '.' || text_[j] == '_' ||
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
        while (j < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[j])) || text_[j] == '_'))
          ++j;
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
        static const char* kSyms[] = {"**", "//", "<=", ">=", "==", "!=", "&&", "||", "+", "-", "*",
                                      "/",  "%",  "<",  ">",  "(",  ")",  "[",  "]",  ",", "!"};
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
      if (IsSym("*"))
        op = Op::kMul;
      else if (IsSym("/"))
        op = Op::kDiv;
      else if (IsSym("//"))
        op = Op::kFloorDiv;
      else if (IsSym("%"))
        op = Op::kMod;
      else
        break;
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
      if (IsSym(",")) {
        ++pos_;
        continue;
      }
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
      if (t.text == "True" || t.text == "true") {
        Node n{Op::kNumber};
        n.number = 1;
        return Add(std::move(n));
      }
      if (t.text == "False" || t.text == "false") {
        Node n{Op::kNumber};
        n.number = 0;
        return Add(std::move(n));
      }
      if (IsSym("(")) {
        static const std::pair<const char*, Fn> kFns[] = {
            {"min", Fn::kMin},     {"max", Fn::kMax},   {"abs", Fn::kAbs},  {"int", Fn::kInt},
            {"float", Fn::kFloat}, {"sqrt", Fn::kSqrt}, {"log2", Fn::kLog2}};
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

}  // namespace

Status ParseExpressionInto(std::string_view text, const Expression::Resolver& resolve,
                           Expression::Impl* out) {
  Parser parser(text, resolve, *out);
  return parser.Run();
}

}  // namespace cprof::tune
