// Every sampler: proposals satisfy the constraints and conditions, are never duplicates, and the
// space's exhaustion is reported; model-based samplers beat random on an easy function.
#include "tune/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "tune/space_file.h"

namespace cprof::tune {
namespace {

SearchSpace Space(const char* yaml) {
  auto f = ParseSpaceYaml(yaml, "test.yaml");
  EXPECT_TRUE(f.ok()) << f.status().message();
  return std::move(f).value().space;
}

// A constrained, conditional, mixed space, small enough to enumerate (and to exhaust).
constexpr const char* kMixed = R"(
parameters:
  - {name: bx, type: ordinal, values: [1, 2, 4, 8, 16, 32]}
  - {name: by, type: ordinal, values: [1, 2, 4, 8, 16, 32]}
  - {name: algo, type: categorical, values: [direct, tiled, fft]}
  - {name: tile, type: int, low: 1, high: 4, condition: "algo == 'tiled'"}
constraints:
  - "bx * by <= 128"
  - "bx * by >= 4"
  - "algo != 'fft' or bx == by"
  - "algo != 'tiled' or tile * bx <= 32"
)";

// Independent check of kMixed's rules on the values.
bool Valid(const std::map<std::string, std::string>& v) {
  int bx = std::stoi(v.at("bx")), by = std::stoi(v.at("by"));
  const std::string& algo = v.at("algo");
  if (bx * by > 128 || bx * by < 4) return false;
  if (algo == "fft" && bx != by) return false;
  if ((algo == "tiled") != (v.count("tile") == 1)) return false;  // condition
  if (algo == "tiled" && std::stoi(v.at("tile")) * bx > 32) return false;
  return true;
}

double Objective(const std::map<std::string, std::string>& v) {
  double bx = std::log2(std::stod(v.at("bx"))), by = std::log2(std::stod(v.at("by")));
  double y = (bx - 3) * (bx - 3) + (by - 2) * (by - 2) + 1;
  if (v.at("algo") == "tiled") y *= 0.5 + 0.1 * std::abs(std::stod(v.at("tile")) - 2);
  return y;
}

class SamplerContract : public ::testing::TestWithParam<std::string> {};

TEST_P(SamplerContract, ValidUniqueUntilExhausted) {
  SearchSpace space = Space(kMixed);
  const size_t total = space.Enumerated()->size();
  auto sampler = MakeSampler(GetParam(), space);
  ASSERT_TRUE(sampler.ok());
  History h;
  std::set<std::string> keys;
  for (size_t i = 0; i < total; ++i) {
    Rng rng = Rng::ForTrial(7, i);
    auto c = (*sampler)->Propose(h, rng);
    ASSERT_TRUE(c.ok()) << GetParam() << " at " << i << " of " << total << ": " << c.status().message();
    std::map<std::string, std::string> v = space.Named(*c);
    ASSERT_TRUE(Valid(v)) << GetParam() << " proposed " << space.Key(*c);
    ASSERT_TRUE(keys.insert(space.Key(*c)).second) << GetParam() << " repeated " << space.Key(*c);
    Observation o;
    o.config = *c;
    o.key = space.Key(*c);
    // A few failures and pending trials (other workers) along the way.
    o.state = i % 11 == 5 ? TrialState::kFailed : (i % 13 == 7 ? TrialState::kPending : TrialState::kComplete);
    o.y = Objective(v);
    o.sampler = (*sampler)->last_label();
    h.Add(std::move(o));
  }
  Rng rng(1);
  auto none = (*sampler)->Propose(h, rng);
  EXPECT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), StatusCode::kNotFound);
}

TEST_P(SamplerContract, ContinuousSpaceWithConstraints) {
  SearchSpace space = Space(R"(
parameters:
  - {name: x, type: float, low: -2, high: 2}
  - {name: y, type: float, low: 0.001, high: 10, log: true}
  - {name: n, type: int, low: 1, high: 1000000}
constraints:
  - "x * x + y <= 4"
  - "n % 2 == 0"
)");
  auto sampler = MakeSampler(GetParam(), space);
  ASSERT_TRUE(sampler.ok());
  History h;
  for (int i = 0; i < 40; ++i) {
    Rng rng = Rng::ForTrial(3, i);
    auto c = (*sampler)->Propose(h, rng);
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto v = space.Values(*c);
    double x = *AsNumber(v[0]), y = *AsNumber(v[1]);
    int64_t n = std::get<int64_t>(v[2]);
    ASSERT_LE(x * x + y, 4 + 1e-9);
    ASSERT_EQ(n % 2, 0);
    Observation o;
    o.config = *c;
    o.key = space.Key(*c);
    ASSERT_FALSE(h.Seen(o.key));
    o.state = TrialState::kComplete;
    o.y = (x - 0.5) * (x - 0.5) + std::log(y) * std::log(y);
    o.sampler = (*sampler)->last_label();
    h.Add(std::move(o));
  }
}

INSTANTIATE_TEST_SUITE_P(All, SamplerContract, ::testing::ValuesIn(SamplerNames()));

TEST(SamplerTest, UnknownNameIsAnError) {
  SearchSpace space = Space(kMixed);
  auto s = MakeSampler("annealing", space);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kInvalidInput);
}

// The arms auto used for the first `n` proposals of a study with the given budget.
std::set<std::string> AutoArms(int64_t budget, int n) {
  SearchSpace space = Space(kMixed);
  auto sampler = MakeSampler("auto", space, budget);
  EXPECT_TRUE(sampler.ok());
  History h;
  std::set<std::string> labels;
  for (int i = 0; i < n; ++i) {
    Rng rng = Rng::ForTrial(5, i);
    auto c = (*sampler)->Propose(h, rng);
    EXPECT_TRUE(c.ok());
    if (!c.ok()) break;
    Observation o{*c, space.Key(*c), TrialState::kComplete, Objective(space.Named(*c)), (*sampler)->last_label()};
    labels.insert(o.sampler);
    h.Add(std::move(o));
  }
  return labels;
}

TEST(SamplerTest, AutoKeepsTheGpAloneInAShortStudy) {
  // 25 evaluations leave the bandit no room: every proposal is the GP arm's.
  EXPECT_EQ(AutoArms(25, 25), std::set<std::string>{"auto/gp"});
  // A longer (or unknown) budget tries the other arms after the GP's warm-up.
  EXPECT_GT(AutoArms(100, 25).size(), 1u);
  EXPECT_GT(AutoArms(0, 25).size(), 1u);
}

TEST(SamplerTest, ModelBasedSamplersBeatRandomOnASmoothFunction) {
  // A 4-D quadratic over a 16^4 grid; mean best after 30 evaluations over seeds.
  SearchSpace space = Space(R"(
parameters:
  - {name: a, type: int, low: 0, high: 15}
  - {name: b, type: int, low: 0, high: 15}
  - {name: c, type: int, low: 0, high: 15}
  - {name: d, type: int, low: 0, high: 15}
)");
  auto f = [&](const Config& c) {
    auto v = space.Values(c);
    double s = 1;
    double opt[] = {3, 11, 7, 13};
    for (int i = 0; i < 4; ++i) s += std::pow((*AsNumber(v[i]) - opt[i]) / 4, 2);
    return s;
  };
  auto mean_best = [&](const std::string& name) {
    double total = 0;
    for (uint64_t seed = 0; seed < 6; ++seed) {
      auto sampler = MakeSampler(name, space);
      History h;
      double best = INFINITY;
      for (int i = 0; i < 30; ++i) {
        Rng rng = Rng::ForTrial(seed, i);
        auto c = (*sampler)->Propose(h, rng);
        EXPECT_TRUE(c.ok());
        Observation o{*c, space.Key(*c), TrialState::kComplete, f(*c), (*sampler)->last_label()};
        best = std::min(best, o.y);
        h.Add(std::move(o));
      }
      total += best;
    }
    return total / 6;
  };
  double random = mean_best("random");
  EXPECT_LT(mean_best("gp"), random);
  EXPECT_LT(mean_best("auto"), random);
}

}  // namespace
}  // namespace cprof::tune
