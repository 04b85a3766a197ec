// The YAML space reader on what users write wrong: every mistake is an error naming the file, the
// line of the field at fault and the reason, never a silent reading of something else.
#include <gtest/gtest.h>

#include "tune/space_file.h"

namespace cprof::tune {
namespace {

std::string Message(const std::string& yaml) {
  auto f = ParseSpaceYaml(yaml, "s.yaml");
  return f.ok() ? std::string("accepted") : f.status().message();
}

// yaml-cpp keeps both copies of a repeated key and a lookup reads the first: the second `low`, the
// second `type` or the second `constraints:` section was dropped without a word.
TEST(SpaceYamlTest, FieldsGivenTwiceAreErrors) {
  EXPECT_EQ(Message("parameters:\n  - name: a\n    type: int\n    low: 0\n    high: 4\n    low: 2\n"),
            "s.yaml: line 2: parameter 'a': field 'low' given twice (again on line 6)");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 4}\nconstraints: ['a < 2']\n"
                    "constraints: ['a > 2']\n"),
            "s.yaml: field 'constraints' given twice (again on line 4)");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 4}\nenv:\n  A: '{a}'\n  A: x\n"),
            "s.yaml: line 5: env.A given twice");
}

// yaml-cpp's own conversion error said only "bad conversion".
// Accepted without a word before: a second document was dropped, and in the mapping form a
// `name:` that differs from the key was ignored.
TEST(SpaceYamlTest, SecondDocumentsAndNamesThatDifferFromTheirKeyAreErrors) {
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 4}\n---\nparameters:\n"
                    "  - {name: b, type: int, low: 0, high: 4}\n"),
            "s.yaml: line 4: a second YAML document; a space file holds one");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 4}\n---\n"), "accepted");
  EXPECT_EQ(Message("parameters:\n  threads:\n    name: other\n    type: int\n    low: 1\n    high: 4\n"),
            "s.yaml: line 3: parameter 'threads': name 'other' differs from its key");
  EXPECT_EQ(Message("parameters:\n  threads: {name: threads, type: int, low: 1, high: 4}\n"), "accepted");
}

TEST(SpaceYamlTest, ListsWhereTextBelongsNameTheField) {
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 4}\nenv:\n  A: [1, 2]\n"),
            "s.yaml: line 4: env.A: expected text, got a list");
  EXPECT_EQ(Message("parameters:\n  - {name: [a], type: int, low: 0, high: 4}\n"),
            "s.yaml: line 2: name: expected text, got a list");
  EXPECT_EQ(Message("parameters:\n  - name: a\n    type: [int]\n"),
            "s.yaml: line 3: parameter 'a': type: expected text, got a list");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 4}\nconstraints:\n  - {expr: a < 3}\n"),
            "s.yaml: line 4: constraint: expected text, got a mapping");
}

TEST(SpaceYamlTest, ErrorsNameTheLineOfTheFieldAtFault) {
  EXPECT_EQ(Message("parameters:\n  - name: a\n    type: int\n    low: 1\n    high: ten\n"),
            "s.yaml: line 5: parameter 'a': high: 'ten' is not a number");
  EXPECT_EQ(Message("parameters:\n  - name: a\n    type: ordinal\n    values: [1, 2]\n    default: 3\n"),
            "s.yaml: line 5: parameter 'a': default 3 is not one of its values");
}

// Found by a QA pass: these named the file but not the line, or were accepted.
TEST(SpaceYamlTest, SpaceLevelMistakesNameTheirLine) {
  const std::string a = "parameters:\n  - {name: a, type: int, low: 0, high: 4}\n";
  EXPECT_EQ(Message(a + "constraint: ['a < 2']\n"),
            "s.yaml: line 3: unknown field 'constraint' (known: parameters, constraints, env)");
  EXPECT_EQ(Message(a + "  - {name: a, type: int, low: 0, high: 9}\n"), "s.yaml: line 3: parameter 'a' defined twice");
  EXPECT_EQ(Message(a + "  - {type: int, low: 0, high: 9}\n"), "s.yaml: line 3: every parameter needs a name");
  // A constraint over no parameter holds everywhere or nowhere.
  EXPECT_EQ(Message(a + "constraints:\n  - 5\n"), "s.yaml: line 4: constraint \"5\" names no parameter");
  // "A=B" as a name would set A to "B=..." in the child's environment.
  EXPECT_EQ(Message(a + "env:\n  \"A=B\": x\n"),
            "s.yaml: line 4: env: 'A=B' is not a variable name (no '=', not empty)");
  // Sections of the wrong kind name their line too.
  EXPECT_EQ(Message(a + "env: [A]\n"), "s.yaml: line 3: 'env' must be a mapping");
  EXPECT_EQ(Message(a + "constraints: a < 2\n"), "s.yaml: line 3: 'constraints' must be a list of expressions");
  EXPECT_EQ(Message("\nparameters: 5\n"), "s.yaml: line 2: 'parameters' must be a list or a mapping");
  EXPECT_EQ(Message(a + "env:\n  A: '{b}'\n"),
            "s.yaml: line 4: env.A: '{b}': no parameter named 'b' (the space has {a})");
}

TEST(SpaceYamlTest, ValuesOfTheWrongKindAreNamed) {
  // An int's default of 2.6 was rounded to 3.
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 4, default: 2.6}\n"),
            "s.yaml: line 2: parameter 'a': default: 2.6 is not an integer");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 9, default: \"5\"}\n"),
            "s.yaml: line 2: parameter 'a': default \"5\" is text, not a number (written in quotes?)");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: ordinal, values: [\"1\", \"2\"], default: 1}\n"),
            "s.yaml: line 2: parameter 'a': default 1 is a number while the value 1 is text: quote both or "
            "neither");
  // Bounds on a list of values were ignored, and values on a range.
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: categorical, values: [x, y], low: 0, high: 1}\n"),
            "s.yaml: line 2: parameter 'a': low: applies to int and float parameters only, not to categorical");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 4, values: [1, 2]}\n"),
            "s.yaml: line 2: parameter 'a': values: applies to categorical and ordinal parameters only, not to int");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 4, fixes: {launch_overhead: 1.5}}\n"),
            "s.yaml: line 2: parameter 'a': fixes.launch_overhead: 1.5 is not an integer");
}

// A bound beyond 2^53 was read as one value (a high of 1e20: "all 1 configurations were tried"),
// and a range of 2^63 values aborted the program.
TEST(SpaceYamlTest, IntRangesBeyondExactDoublesAreErrors) {
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 1, high: 99999999999999999999}\n"),
            "s.yaml: line 2: parameter 'a': int bounds must lie within +-9007199254740992 (2^53)");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: float, low: 0, high: 1, step: 1e-17}\n"),
            "s.yaml: line 2: parameter 'a': more than 2^53 values between low and high");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: -9007199254740992, high: 9007199254740992}\n"),
            "s.yaml: line 2: parameter 'a': more than 2^53 values between low and high");
  EXPECT_EQ(Message("parameters:\n  - {name: seed, type: int, low: 0, high: 4294967295}\n"), "accepted");
  // 2^53 + 1 read as a double is 2^53, which passed the check.
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 1, high: 9007199254740993}\n"),
            "s.yaml: line 2: parameter 'a': high: 9007199254740993 is beyond +-2^53");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: -9007199254740993, high: 1}\n"),
            "s.yaml: line 2: parameter 'a': low: -9007199254740993 is beyond +-2^53");
  EXPECT_EQ(Message("parameters:\n  - {name: a, type: int, low: 0, high: 9, default: 1e300}\n"),
            "s.yaml: line 2: parameter 'a': default: 1e+300 is beyond +-2^53");
}

// low + k * step in binary is off in the last bits: the command received 0.30000000000000004, and
// 0.7000000000000001 above `high: 0.7`.
TEST(SpaceYamlTest, SteppedFloatsReachTheCommandAsWritten) {
  auto f = ParseSpaceYaml("parameters:\n  - {name: x, type: float, low: 0.1, high: 0.7, step: 0.1, default: 0.3}\n",
                          "s.yaml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  const Parameter& x = f->space.param(0);
  std::vector<std::string> shown;
  for (size_t i = 0; i < x.cardinality(); ++i) shown.push_back(FormatValue(x.ValueAt(static_cast<double>(i))));
  EXPECT_EQ(shown, (std::vector<std::string>{"0.1", "0.2", "0.3", "0.4", "0.5", "0.6", "0.7"}));
  EXPECT_EQ(FormatValue(f->space.Values(*f->space.DefaultConfig())[0]), "0.3");
  auto g = ParseSpaceYaml("parameters:\n  - {name: x, type: float, low: 0, high: 1, step: 0.3}\n", "s.yaml");
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(FormatValue(g->space.param(0).ValueAt(3)), "0.9");
}

}  // namespace
}  // namespace cprof::tune
