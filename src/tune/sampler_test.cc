// Every sampler: proposals satisfy the constraints and conditions, are never duplicates, and the
// space's exhaustion is reported; model-based samplers beat random on an easy function.
#include "tune/sampler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <optional>
#include <set>

#include "tune/candidates.h"
#include "tune/space_file.h"
#include "tune/surrogate_data.h"

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

// Ranges of billions of values (a seed, a byte size, a fine float grid): the model of absent
// values counted per value, 1.6 GB and 24 s for four trials at 1e8 and std::bad_alloc at 1e10.
TEST_P(SamplerContract, WideRangesStayWithinBounds) {
  SearchSpace space = Space(R"(
parameters:
  - {name: seed, type: int, low: 1, high: 9000000000000000}
  - {name: lr, type: float, low: 0.00001, high: 1, step: 0.00000001}
  - {name: bs, type: ordinal, values: [8, 16, 32]}
)");
  auto sampler = MakeSampler(GetParam(), space);
  ASSERT_TRUE(sampler.ok());
  History h;
  for (int i = 0; i < 12; ++i) {
    Rng rng = Rng::ForTrial(5, i);
    auto c = (*sampler)->Propose(h, rng);
    ASSERT_TRUE(c.ok()) << c.status().message();
    auto v = space.Values(*c);
    const int64_t seed = std::get<int64_t>(v[0]);
    const double lr = *AsNumber(v[1]);
    ASSERT_TRUE(seed >= 1 && seed <= 9000000000000000) << seed;
    ASSERT_TRUE(lr >= 0.00001 && lr <= 1) << lr;
    Observation o;
    o.config = *c;
    o.key = space.Key(*c);
    // Every third proposal absent (a hidden constraint), so that the model of absent values runs.
    o.state = i % 3 == 2 ? TrialState::kInfeasible : TrialState::kComplete;
    o.y = std::abs(std::log(lr) + 5) + static_cast<double>(seed % 7);
    o.sampler = (*sampler)->last_label();
    h.Add(std::move(o));
  }
}

// A log-scaled int is drawn log-uniformly also where the space is small enough to enumerate:
// drawing uniformly over the configurations gave batch <= 64 in 0 of 30 draws (a half expected).
TEST(SamplerTest, RandomDrawsALogScaledIntLogUniformly) {
  SearchSpace space = Space(R"(
parameters:
  - {name: batch, type: int, low: 1, high: 4096, log: true}
  - {name: threads, type: int, low: 1, high: 64}
constraints:
  - "threads <= 48"
)");
  ASSERT_NE(space.Enumerated(), nullptr);
  History h;
  int small = 0;
  constexpr int kDraws = 400;
  for (int i = 0; i < kDraws; ++i) {
    Rng rng = Rng::ForTrial(11, i);
    std::optional<Config> c = RandomUnseen(space, h, rng);
    ASSERT_TRUE(c.has_value());
    auto v = space.Values(*c);
    ASSERT_LE(std::get<int64_t>(v[1]), 48);
    small += std::get<int64_t>(v[0]) <= 64;
    Observation o;
    o.config = *c;
    o.key = space.Key(*c);
    o.state = TrialState::kComplete;
    h.Add(std::move(o));
  }
  // Log-uniform: P(batch <= 64) = log(64.5 / 0.5) / log(4096.5 / 0.5) ~ 0.54; uniform: 0.016.
  EXPECT_GT(small, kDraws * 4 / 10) << small;
  EXPECT_LT(small, kDraws * 7 / 10) << small;
}

TEST(SamplerTest, RankingWalksPastWhatTheStudyHasSeen) {
  SearchSpace space = Space(kMixed);
  const std::vector<Config>& all = *space.Enumerated();
  Ranking r;
  EXPECT_FALSE(r.MadeFor(0));
  r.Set({all[2], all[0], all[1]}, {1, 3, 2}, 4);  // best first: all[0], all[1], all[2]
  EXPECT_TRUE(r.MadeFor(4));
  EXPECT_FALSE(r.MadeFor(5));
  History h;
  h.Add({all[1], space.Key(all[1]), TrialState::kInfeasible, NAN, "x"});
  EXPECT_EQ(space.Key(*r.Next(space, h)), space.Key(all[0]));
  EXPECT_EQ(space.Key(*r.Next(space, h)), space.Key(all[2]));  // all[1] was found not to exist
  EXPECT_FALSE(r.Next(space, h).has_value());
}

// A pool of a space smaller than it asks for holds every configuration in random order: the
// design takes a pool's first as its first point, and in the enumeration's order that was the same
// corner (the first value of every parameter) in every study.
TEST(SamplerTest, PoolOfASmallSpaceIsInRandomOrder) {
  SearchSpace space = Space(kMixed);
  const size_t size = space.Enumerated()->size();
  std::map<std::string, int> first;
  for (uint64_t seed = 0; seed < 400; ++seed) {
    Rng rng(seed);
    std::vector<Config> pool = CandidatePool(space, History(), rng, 4 * size, {});
    ASSERT_EQ(pool.size(), size);
    ++first[space.Key(pool.front())];
  }
  EXPECT_GT(first.size(), size / 2);  // 400 draws over its 120 configurations
  for (const auto& [key, n] : first) EXPECT_LT(n, 20) << key;
}

// A maximized rate reaches the samplers negated (-GFLOP/s): its model is on -log(rate), as a
// time's is on log(time), not on the raw value, where one fast outlier flattens the rest.
TEST(SamplerTest, SurrogateTargetsOfANegatedRateAreLogs) {
  SearchSpace space = Space(kMixed);
  const std::vector<Config>& all = *space.Enumerated();
  auto targets = [&](std::vector<double> ys) {
    History h;
    for (size_t i = 0; i < ys.size(); ++i)
      h.Add({all[i], space.Key(all[i]), TrialState::kComplete, ys[i], "x"});
    h.Add({all[ys.size()], space.Key(all[ys.size()]), TrialState::kFailed, NAN, "x"});
    return CollectSurrogateData(h);
  };
  SurrogateData d = targets({-100, -1000, -10});
  EXPECT_EQ(d.scale, SurrogateData::Scale::kNegatedLog);
  EXPECT_NEAR(d.y[0], -std::log(100.0), 1e-12);
  EXPECT_NEAR(d.y[1], -std::log(1000.0), 1e-12);
  EXPECT_EQ(d.order.front(), 1u);               // the highest rate is the best
  EXPECT_TRUE(d.failed[3]);  // a failure: a row without a target, not among the ranked ones
  EXPECT_TRUE(std::isnan(d.y[3]));
  EXPECT_EQ(d.order.size(), 3u);
  EXPECT_EQ(targets({2, 3}).scale, SurrogateData::Scale::kLog);
  SurrogateData mixed = targets({-2, 3});
  EXPECT_EQ(mixed.scale, SurrogateData::Scale::kLinear);
  EXPECT_EQ(mixed.y[0], -2);
}

TEST(SamplerTest, HistoryIndexesTheTrialsThatExist) {
  SearchSpace space = Space(kMixed);
  const std::vector<Config>& all = *space.Enumerated();
  History h;
  const TrialState states[] = {TrialState::kInfeasible, TrialState::kComplete, TrialState::kInfeasible,
                               TrialState::kFailed, TrialState::kPending, TrialState::kInfeasible};
  for (size_t i = 0; i < 6; ++i) h.Add({all[i], space.Key(all[i]), states[i], i == 1 ? 2.0 : NAN, "x"});
  EXPECT_EQ(h.existing(), (std::vector<size_t>{1, 3, 4}));
  EXPECT_EQ(h.infeasible(), 3u);
  EXPECT_EQ(h.evaluations(), 2u);
}

// Hidden constraints (replay: configurations absent from a Kernel Tuner cache) cost no
// evaluation, but each one found is a proposal. Here only pad == 0 exists, one configuration in
// 16. A sampler whose criterion prefers the values it has not measured (MaxPro's design, TPE's
// l / g) chose a nonexistent configuration over and over when each miss was followed by a fresh
// draw's best: the GP's design and TPE stalled for the whole 50,000-proposal allowance of a
// 25-evaluation study on such a copy of gemm. Every sampler must get on with the study.
TEST_P(SamplerContract, ConfigurationsThatDoNotExistCostProposalsNotTheStudy) {
  SearchSpace space = Space(R"(
parameters:
  - {name: a, type: ordinal, values: [1, 2, 4, 8]}
  - {name: b, type: ordinal, values: [1, 2, 4, 8]}
  - {name: c, type: ordinal, values: [1, 2, 4, 8]}
  - {name: d, type: ordinal, values: [1, 2, 4, 8]}
  - {name: e, type: ordinal, values: [1, 2, 4, 8]}
  - {name: f, type: ordinal, values: [1, 2, 4, 8]}
  - {name: g, type: categorical, values: [0, 1]}
  - {name: h, type: categorical, values: [0, 1]}
  - {name: pad, type: ordinal, values: [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]}
)");
  constexpr size_t kEvaluations = 40, kMaxProposals = 4000;
  for (uint64_t seed = 0; seed < 3; ++seed) {
    auto sampler = MakeSampler(GetParam(), space, kEvaluations);
    ASSERT_TRUE(sampler.ok());
    History h;
    size_t proposals = 0;
    while (h.evaluations() < kEvaluations && proposals < kMaxProposals) {
      Rng rng = Rng::ForTrial(seed, h.size());
      auto c = (*sampler)->Propose(h, rng);
      ASSERT_TRUE(c.ok()) << c.status().message();
      ++proposals;
      auto v = space.Values(*c);
      Observation o{*c, space.Key(*c), TrialState::kInfeasible, NAN, (*sampler)->last_label()};
      if (*AsNumber(v[8]) == 0) {
        o.state = TrialState::kComplete;
        o.y = std::abs(std::log2(*AsNumber(v[0])) - 2) + std::abs(std::log2(*AsNumber(v[1])) - 1) + 1;
      }
      h.Add(std::move(o));
    }
    EXPECT_EQ(h.evaluations(), kEvaluations) << GetParam() << ", seed " << seed << ": " << proposals << " proposals";
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

// The mean over `seeds` studies of `n` trials of the best value `eval` gives (nullopt: the trial
// fails). `failed`, when given, counts the failures after the first 6 trials of each study.
double MeanBest(const SearchSpace& space, const std::string& sampler_name, int seeds, int n,
                const std::function<std::optional<double>(const Config&)>& eval, int* failed = nullptr) {
  double total = 0;
  for (int seed = 0; seed < seeds; ++seed) {
    auto sampler = MakeSampler(sampler_name, space);
    EXPECT_TRUE(sampler.ok());
    History h;
    double best = INFINITY;
    for (int i = 0; i < n; ++i) {
      Rng rng = Rng::ForTrial(static_cast<uint64_t>(seed), i);
      auto c = (*sampler)->Propose(h, rng);
      if (!c.ok()) return INFINITY;
      std::optional<double> y = eval(*c);
      Observation o{*c, space.Key(*c), y ? TrialState::kComplete : TrialState::kFailed, y.value_or(NAN),
                    (*sampler)->last_label()};
      if (y) best = std::min(best, *y);
      if (!y && failed && i >= 6) ++*failed;
      h.Add(std::move(o));
    }
    total += best;
  }
  return total / seeds;
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
    return MeanBest(space, name, 6, 30, [&](const Config& c) { return std::optional<double>(f(c)); });
  };
  double random = mean_best("random");
  EXPECT_LT(mean_best("gp"), random);
  EXPECT_LT(mean_best("auto"), random);
}

// The best configuration borders a region where every trial fails (a tile one step too large for
// the registers). The GP learns the region from its failures and avoids it, and still finds the
// best next to it.
TEST(SamplerTest, GpAvoidsWhereTrialsFailAndFindsTheBestBesideIt) {
  SearchSpace space = Space(R"(
parameters:
  - {name: a, type: int, low: 0, high: 15}
  - {name: b, type: int, low: 0, high: 15}
)");
  auto eval = [&](const Config& c) -> std::optional<double> {
    auto v = space.Values(c);
    const double a = *AsNumber(v[0]), b = *AsNumber(v[1]);
    if (a > 10) return std::nullopt;
    return 1 + (a - 10) * (a - 10) + (b - 10) * (b - 10);
  };
  auto run = [&](const std::string& name, double* fail_share) {
    int failed = 0;
    const double best = MeanBest(space, name, 8, 30, eval, &failed);
    *fail_share = failed / (8.0 * (30 - 6));
    return best;
  };
  double gp_fail = 0, random_fail = 0;
  const double gp_best = run("gp", &gp_fail);
  run("random", &random_fail);
  EXPECT_LE(gp_best, 1.5);  // the optimum (1 at a = b = 10) or its neighbour (2)
  EXPECT_LT(gp_fail, 0.7 * random_fail) << gp_fail << " of the GP's proposals failed, random's " << random_fail;

  // The value would keep falling inside the failing region (toward a = b = 12): the best that runs
  // is its corner. A failure taken as the worst value made the corner's neighbourhood look slow
  // (mean best after 15 trials 6.2); modelled apart, 4.4 (random 11.3).
  auto corner = [&](const Config& c) -> std::optional<double> {
    auto v = space.Values(c);
    const double a = *AsNumber(v[0]), b = *AsNumber(v[1]);
    if (a > 10 || b > 10) return std::nullopt;
    return 1 + ((a - 12) * (a - 12) + (b - 12) * (b - 12)) / 4;
  };
  EXPECT_LT(MeanBest(space, "gp", 30, 15, corner), 5.0);
}

}  // namespace
}  // namespace cprof::tune
