#include "base/shell_quote.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

TEST(ShellQuoteTest, PlainWordsStayAndOthersAreSingleQuoted) {
  EXPECT_EQ(ShellQuote("run.pb"), "run.pb");
  EXPECT_EQ(ShellQuote("--x=1,2"), "--x=1,2");
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("a b"), "'a b'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("$(rm x); `y`"), "'$(rm x); `y`'");
}

TEST(ShellQuoteTest, ContextFollowsQuotesEscapesAndSubstitutions) {
  auto at = [](std::string_view text, std::string_view marker) {
    return ShellQuoteContext(text, text.find(marker));
  };
  EXPECT_EQ(at("echo X", "X"), ShellQuoting::kNone);
  EXPECT_EQ(at("echo \"a X\"", "X"), ShellQuoting::kDouble);
  EXPECT_EQ(at("echo 'a X'", "X"), ShellQuoting::kSingle);
  EXPECT_EQ(at("echo 'a' X", "X"), ShellQuoting::kNone);
  EXPECT_EQ(at("echo \"it's X\"", "X"), ShellQuoting::kDouble);    // ' inside "..." is literal
  EXPECT_EQ(at("echo 'say \"X", "X"), ShellQuoting::kSingle);      // " inside '...' is literal
  EXPECT_EQ(at("echo \\\"X", "X"), ShellQuoting::kNone);           // an escaped quote opens nothing
  EXPECT_EQ(at("echo \"a\\\"X\"", "X"), ShellQuoting::kDouble);    // nor closes
  EXPECT_EQ(at("echo \"$(cat X)\"", "X"), ShellQuoting::kNone);    // a substitution starts afresh
  EXPECT_EQ(at("echo \"$(cat 'X')\"", "X"), ShellQuoting::kSingle);
  EXPECT_EQ(at("echo \"$(cat a) X\"", "X"), ShellQuoting::kDouble);
  EXPECT_EQ(at("echo \"`cat X`\"", "X"), ShellQuoting::kNone);
  EXPECT_EQ(at("echo \"`cat a` X\"", "X"), ShellQuoting::kDouble);
}

}  // namespace
}  // namespace cprof
