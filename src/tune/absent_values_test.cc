// AbsentValues: a value is ruled out once enough of its proposals were absent that it would have
// existed by now were it even rarely valid; rare but existing values and little-tried ones stay.
#include "tune/absent_values.h"

#include <gtest/gtest.h>

#include "tune/space_file.h"

namespace cprof::tune {
namespace {

SearchSpace TwoParams() {
  auto f = ParseSpaceYaml(R"(
parameters:
  - {name: a, type: ordinal, values: [0, 1, 2, 3]}
  - {name: x, type: float, low: 0, high: 1}
)",
                          "test.yaml");
  EXPECT_TRUE(f.ok()) << f.status().message();
  return std::move(f).value().space;
}

// `tried` proposals of value `a`, the first `existed` of them measured, the rest absent.
void Propose(History& h, double a, int tried, int existed) {
  for (int i = 0; i < tried; ++i) {
    Config c = {a, (i + 0.5) / tried};
    const bool exists = i < existed;
    h.Add({c, std::to_string(a) + "," + std::to_string(i), exists ? TrialState::kComplete : TrialState::kInfeasible,
           exists ? 1.0 : NAN, "test"});
  }
}

TEST(AbsentValuesTest, RulesOutOnlyValuesThatShouldHaveExistedByNow) {
  SearchSpace space = TwoParams();
  History h;
  Propose(h, 0, 60, 60);  // always exists
  Propose(h, 1, 59, 0);   // never, but 59 x 1/20 < 3 existences expected: not yet
  Propose(h, 2, 60, 1);   // rarely
  Propose(h, 3, 60, 0);   // never, and 60 x 1/20 = 3 expected: ruled out
  AbsentValues absent(space, h);
  ASSERT_TRUE(absent.any());
  EXPECT_FALSE(absent.RulesOut({0, 0.5}));
  EXPECT_FALSE(absent.RulesOut({1, 0.5}));
  EXPECT_FALSE(absent.RulesOut({2, 0.5}));
  EXPECT_TRUE(absent.RulesOut({3, 0.5}));
  // The share counts the 179 proposals not ruled out, 61 of which existed.
  EXPECT_DOUBLE_EQ(absent.ExistingShare(), 62.0 / 180.0);

  Propose(h, 1, 1, 0);  // the 60th absent proposal of value 1
  EXPECT_TRUE(AbsentValues(space, h).RulesOut({1, 0.5}));
}

TEST(AbsentValuesTest, NothingIsRuledOutWhileEveryProposalExisted) {
  SearchSpace space = TwoParams();
  History h;
  Propose(h, 0, 100, 100);
  Propose(h, 3, 5, 5);
  AbsentValues absent(space, h);
  EXPECT_FALSE(absent.any());
  EXPECT_FALSE(absent.RulesOut({1, 0.2}));
  EXPECT_DOUBLE_EQ(absent.ExistingShare(), 1.0);
}

TEST(AbsentValuesTest, InactiveParametersAndEmptyHistoriesRuleOutNothing) {
  SearchSpace space = TwoParams();
  History h;
  AbsentValues empty(space, h);
  EXPECT_FALSE(empty.any());
  Propose(h, 0, 60, 60);
  Propose(h, 3, 60, 0);
  AbsentValues absent(space, h);
  EXPECT_FALSE(absent.RulesOut({NAN, 0.5}));
  EXPECT_TRUE(absent.RulesOut({3, NAN}));
}

TEST(AbsentValuesTest, CacheFollowsTheHistoryAndRebuildsForAnother) {
  SearchSpace space = TwoParams();
  AbsentValuesCache cache;
  History h;
  Propose(h, 0, 60, 60);
  EXPECT_FALSE(cache.For(space, h).any());
  Propose(h, 3, 60, 0);  // grown by more than 1/64: rebuilt
  EXPECT_TRUE(cache.For(space, h).RulesOut({3, 0.5}));
  History other;  // shorter: another history, rebuilt
  Propose(other, 0, 10, 10);
  EXPECT_FALSE(cache.For(space, other).any());
}

}  // namespace
}  // namespace cprof::tune
