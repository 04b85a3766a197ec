// The constraint language: Python semantics where Kernel Tuner restrictions rely on them, errors as values.
#include "tune/expression.h"

#include <gtest/gtest.h>

namespace cprof::tune {
namespace {

// Slots: x=0, y=1, name=2, off=3 (inactive).
std::optional<int> Resolve(std::string_view n) {
  if (n == "x") return 0;
  if (n == "y") return 1;
  if (n == "name") return 2;
  if (n == "off") return 3;
  return std::nullopt;
}

const std::vector<Value> kSlots = {int64_t{6}, 2.5, std::string("adam"), Value{}};

Value Eval(const std::string& text) {
  auto e = Expression::Parse(text, Resolve);
  EXPECT_TRUE(e.ok()) << e.status().message();
  auto v = e->Evaluate(kSlots);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() ? *v : Value{};
}

bool Holds(const std::string& text) {
  auto e = Expression::Parse(text, Resolve);
  EXPECT_TRUE(e.ok()) << e.status().message();
  auto v = e->EvaluateBool(kSlots);
  EXPECT_TRUE(v.ok()) << v.status().message();
  return v.ok() && *v;
}

TEST(ExpressionTest, ArithmeticAndPrecedence) {
  EXPECT_EQ(std::get<int64_t>(Eval("1 + 2 * 3")), 7);
  EXPECT_EQ(std::get<int64_t>(Eval("(1 + 2) * 3")), 9);
  EXPECT_EQ(std::get<int64_t>(Eval("2 ** 3 ** 2")), 512);  // right-associative
  EXPECT_EQ(std::get<int64_t>(Eval("-2 ** 2")), -4);       // as in Python
  EXPECT_EQ(std::get<int64_t>(Eval("x * 2 - 1")), 11);
  EXPECT_DOUBLE_EQ(std::get<double>(Eval("y / 2")), 1.25);
  EXPECT_DOUBLE_EQ(std::get<double>(Eval("7 / 2")), 3.5);
}

TEST(ExpressionTest, PythonFloorDivisionAndModulo) {
  EXPECT_EQ(std::get<int64_t>(Eval("7 // 2")), 3);
  EXPECT_EQ(std::get<int64_t>(Eval("-7 // 2")), -4);
  EXPECT_EQ(std::get<int64_t>(Eval("-7 % 3")), 2);
  EXPECT_EQ(std::get<int64_t>(Eval("7 % -3")), -2);
  EXPECT_TRUE(Holds("32 % x == 2"));
}

TEST(ExpressionTest, ComparisonsLogicAndMembership) {
  EXPECT_TRUE(Holds("x * y <= 15"));
  EXPECT_FALSE(Holds("x * y < 15"));
  EXPECT_TRUE(Holds("1 <= x < 8"));   // chained
  EXPECT_FALSE(Holds("1 <= x < 6"));
  EXPECT_TRUE(Holds("x in [2, 4, 6]"));
  EXPECT_TRUE(Holds("x not in (1, 3)"));
  EXPECT_TRUE(Holds("name == 'adam' and not x == 5"));
  EXPECT_TRUE(Holds("name == \"sgd\" or x > 5"));
  EXPECT_TRUE(Holds("name != 'sgd' && !(x < 0) || False"));
  EXPECT_TRUE(Holds("name in ['adam', 'sgd']"));
  EXPECT_TRUE(Holds("min(x, 3) == 3 and max([1, x, 2]) == 6 and abs(-x) == 6"));
  EXPECT_TRUE(Holds("log2(x + 2) == 3 and int(y) == 2 and sqrt(16) == 4"));
}

TEST(ExpressionTest, ParseErrorsNameTheColumn) {
  auto e = Expression::Parse("x * z <= 3", Resolve);
  ASSERT_FALSE(e.ok());
  EXPECT_NE(e.status().message().find("unknown parameter 'z'"), std::string::npos);
  EXPECT_NE(e.status().message().find("column 5"), std::string::npos);
  EXPECT_FALSE(Expression::Parse("x <= ", Resolve).ok());
  EXPECT_FALSE(Expression::Parse("(x + 1", Resolve).ok());
  EXPECT_FALSE(Expression::Parse("x.real", Resolve).ok());
  EXPECT_FALSE(Expression::Parse("__import__('os')", Resolve).ok());
  EXPECT_FALSE(Expression::Parse("'open", Resolve).ok());
  EXPECT_FALSE(Expression::Parse(std::string(500, '(') + "x" + std::string(500, ')'), Resolve).ok());
}

TEST(ExpressionTest, EvaluationErrorsAreValues) {
  auto div = Expression::Parse("x / (y - 2.5) > 1", Resolve);
  ASSERT_TRUE(div.ok());
  EXPECT_FALSE(div->EvaluateBool(kSlots).ok());
  auto inactive = Expression::Parse("off > 1", Resolve);
  ASSERT_TRUE(inactive.ok());
  EXPECT_FALSE(inactive->EvaluateBool(kSlots).ok());
  auto mixed = Expression::Parse("name < 3", Resolve);
  ASSERT_TRUE(mixed.ok());
  EXPECT_FALSE(mixed->EvaluateBool(kSlots).ok());
  EXPECT_EQ(inactive->slots(), std::vector<int>({3}));
}

}  // namespace
}  // namespace cprof::tune
