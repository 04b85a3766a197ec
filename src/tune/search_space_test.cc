// Search spaces: YAML, conditions, constraints, enumeration, Kernel Tuner and T4 imports.
#include "tune/search_space.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>

#include "tune/kernel_tuner_cache.h"
#include "tune/space_file.h"

namespace cprof::tune {
namespace {

const std::string kFixtures = CPROF_FIXTURES_DIR "/tuning";

constexpr const char* kYaml = R"(
parameters:
  - {name: threads, type: int, low: 1, high: 8, default: 4}
  - {name: batch, type: int, low: 8, high: 128, step: 8, log: true, default: 32}
  - {name: lr, type: float, low: 1.0e-4, high: 0.1, log: true}
  - {name: optimizer, type: categorical, values: [adam, sgd], default: adam}
  - {name: momentum, type: float, low: 0.0, high: 0.9, step: 0.1, default: 0.5, condition: "optimizer == 'sgd'"}
  - {name: block, type: ordinal, values: [16, 32, 64, 128], default: 32}
constraints:
  - "threads * block <= 256"
env:
  OMP_NUM_THREADS: "{threads}"
)";

SpaceFile Load(const std::string& yaml) {
  auto f = ParseSpaceYaml(yaml, "test.yaml");
  EXPECT_TRUE(f.ok()) << f.status().message();
  return std::move(f).value();
}

TEST(SearchSpaceTest, ReadsYaml) {
  SpaceFile f = Load(kYaml);
  const SearchSpace& s = f.space;
  ASSERT_EQ(s.size(), 6u);
  EXPECT_EQ(s.param(0).type, ParamType::kInt);
  EXPECT_EQ(s.param(0).cardinality(), 8u);
  EXPECT_EQ(s.param(1).cardinality(), 16u);
  EXPECT_TRUE(s.param(2).continuous());
  EXPECT_EQ(s.param(3).type, ParamType::kCategorical);
  EXPECT_EQ(s.param(4).cardinality(), 10u);
  EXPECT_TRUE(s.param(4).condition.has_value());
  EXPECT_EQ(s.param(5).type, ParamType::kOrdinal);
  EXPECT_EQ(s.constraints().size(), 1u);
  ASSERT_EQ(f.env.size(), 1u);
  EXPECT_EQ(f.env[0].second, "{threads}");
  EXPECT_FALSE(s.all_discrete());
  EXPECT_EQ(s.Enumerated(), nullptr);  // a continuous parameter: not listable
}

TEST(SearchSpaceTest, DefaultsAndConditions) {
  SpaceFile f = Load(R"(
parameters:
  - {name: threads, type: int, low: 1, high: 8, default: 4}
  - {name: optimizer, type: categorical, values: [adam, sgd], default: adam}
  - {name: momentum, type: ordinal, values: [0.0, 0.5, 0.9], default: 0.5, condition: "optimizer == 'sgd'"}
)");
  const SearchSpace& s = f.space;
  auto d = s.DefaultConfig();
  ASSERT_TRUE(d.has_value());
  EXPECT_EQ(s.Key(*d), "4,adam,-");  // momentum is inactive with adam
  auto sgd = s.FromValues({{"threads", int64_t{2}}, {"optimizer", std::string("sgd")}});
  ASSERT_TRUE(sgd.ok()) << sgd.status().message();
  EXPECT_EQ(s.Key(*sgd), "2,sgd,0.5");  // newly active: its default
  // Enumeration: 8 threads x (adam + sgd x 3 momenta) = 32 configurations.
  const auto* all = s.Enumerated();
  ASSERT_NE(all, nullptr);
  EXPECT_EQ(all->size(), 32u);
  std::set<std::string> keys;
  for (const Config& c : *all) {
    keys.insert(s.Key(c));
    bool is_sgd = s.Named(c).at("optimizer") == "sgd";
    EXPECT_EQ(std::isnan(c[2]), !is_sgd) << s.Key(c);
  }
  EXPECT_EQ(keys.size(), 32u);
  // Uniform samples respect conditions too.
  Rng rng(1);
  for (int i = 0; i < 200; ++i) {
    Config c = s.Canonicalize(s.SampleUniform(rng), &rng);
    EXPECT_EQ(std::isnan(c[2]), s.Named(c).at("optimizer") == "adam");
  }
}

// The default configuration passes the space file's values to the command as written: a log-scale
// 0.01 went out as 0.010000000000000005 (the round trip through its unit coordinate).
TEST(SearchSpaceTest, FloatDefaultsSurviveTheCoordinateRoundTrip) {
  SpaceFile f = Load(R"(
parameters:
  - {name: lr, type: float, low: 1.0e-4, high: 0.1, log: true, default: 0.01}
  - {name: drop, type: float, low: 0.1, high: 0.7, default: 0.3}
  - {name: wd, type: float, low: 1.0e-6, high: 1.0e-2, log: true, default: 3.0e-5}
)");
  auto d = f.space.DefaultConfig();
  ASSERT_TRUE(d.has_value());
  std::map<std::string, std::string> named = f.space.Named(*d);
  EXPECT_EQ(named.at("lr"), "0.01");
  EXPECT_EQ(named.at("drop"), "0.3");
  EXPECT_EQ(named.at("wd"), "3e-05");
  // The ends stay inside the bounds.
  const Parameter& lr = f.space.params()[0];
  EXPECT_EQ(std::get<double>(lr.ValueAt(1.0)), 0.1);
  EXPECT_EQ(std::get<double>(lr.ValueAt(0.0)), 1.0e-4);
}

// A float grid that crosses zero has 0 on it, not low + 3 * step (5.55e-17 went to the command).
TEST(SearchSpaceTest, FloatGridValuesAreTheDecimalsOfTheGrid) {
  SpaceFile f = Load(R"(
parameters:
  - {name: d, type: float, low: -0.3, high: 0.3, step: 0.1, default: 0}
  - {name: e, type: float, low: -0.9, high: 0.9, step: 0.3, default: 0}
)");
  auto c = f.space.DefaultConfig();
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(f.space.Named(*c).at("d"), "0");
  EXPECT_EQ(f.space.Named(*c).at("e"), "0");
  std::vector<std::string> grid;
  for (double i = 0; i < 7; ++i) grid.push_back(FormatValue(f.space.param(0).ValueAt(i)));
  EXPECT_EQ(grid, (std::vector<std::string>{"-0.3", "-0.2", "-0.1", "0", "0.1", "0.2", "0.3"}));
}

// A float whose range is one point has one value, so the space can be listed (a study of it said
// it was not exhausted after its one configuration).
TEST(SearchSpaceTest, AFloatRangeOfOnePointIsOneValue) {
  SpaceFile f = Load("parameters:\n  - {name: v, type: float, low: 2.5, high: 2.5, default: 2.5}\n");
  ASSERT_NE(f.space.Enumerated(), nullptr);
  ASSERT_EQ(f.space.Enumerated()->size(), 1u);
  EXPECT_EQ(f.space.Named(f.space.Enumerated()->front()).at("v"), "2.5");
}

// Every short decimal default comes back as written, whatever the range: a log-scale default of 1
// in 0.001..10 went out as 0.999999999999999 (exp(log) is off by more than 15 digits keep), and 0
// in -3..7 as 4.44e-16 (the blend of the ends is off by their ulps).
TEST(SearchSpaceTest, ShortDefaultsComeBackAsWrittenOverManyRanges) {
  int checked = 0;
  for (double low : {-3.0, -1.0, 1e-6, 1e-3, 0.01, 0.3, 1.0, 7.0}) {
    for (double high : {10.0, 12.5, 1e3, 3.3e5}) {
      for (const char* def :
           {"0", "-0.5", "1", "2", "0.3", "0.5", "5e-04", "7", "9.9", "0.001", "123.4", "3e+05"}) {
        const double d = std::strtod(def, nullptr);
        if (d < low || d > high) continue;
        for (const char* log : {"true", "false"}) {
          if (low <= 0 && std::string_view(log) == "true") continue;  // a log scale needs low > 0
          SpaceFile f = Load(fmt::format(
              "parameters:\n  - {{name: v, type: float, low: {}, high: {}, log: {}, default: {}}}\n", low,
              high, log, def));
          auto c = f.space.DefaultConfig();
          ASSERT_TRUE(c.has_value());
          EXPECT_EQ(f.space.Named(*c).at("v"), FormatValue(Value{d}))
              << low << ".." << high << " log " << log;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 300);
}

// An equality over two wide ranges holds in 11 of 2^20 combinations (with a float beside them,
// the space cannot be listed): the constrained pair is drawn from its listed feasible combinations,
// so every draw is feasible and each of the 11 comes up about equally often.
TEST(SearchSpaceTest, ConstrainedParametersAreDrawnFromTheirFeasibleCombinations) {
  SpaceFile f = Load(R"(
parameters:
  - {name: bx, type: int, low: 1, high: 1024, default: 32}
  - {name: lr, type: float, low: 0.001, high: 0.1, log: true}
  - {name: by, type: int, low: 1, high: 1024, default: 32}
constraints:
  - "bx * by == 1024"
)");
  EXPECT_EQ(f.space.Enumerated(), nullptr);
  EXPECT_FALSE(f.space.ConstrainedCoreEmpty());
  Rng rng(7);
  std::map<std::string, int> seen;
  std::set<std::string> lrs;
  for (int i = 0; i < 2200; ++i) {
    Config c = f.space.Canonicalize(f.space.SampleUniform(rng), &rng);
    ASSERT_TRUE(f.space.Feasible(c));
    auto named = f.space.Named(c);
    EXPECT_EQ(std::stoll(named.at("bx")) * std::stoll(named.at("by")), 1024);
    ++seen[named.at("bx")];
    lrs.insert(named.at("lr"));
  }
  EXPECT_EQ(seen.size(), 11u);
  for (const auto& [bx, n] : seen) EXPECT_GT(n, 120) << "bx=" << bx;  // 200 expected each
  EXPECT_GT(lrs.size(), 2000u) << "the float is drawn on its own";

  // A log-scale parameter among them keeps its log scale, as rejection sampling would draw it:
  // of the even values of 1..1024, those up to 32 are about half the draws, not 3%.
  SpaceFile logs = Load(R"(
parameters:
  - {name: block, type: int, low: 1, high: 1024, log: true}
  - {name: lr, type: float, low: 0.001, high: 0.1}
constraints:
  - "block % 2 == 0"
)");
  ASSERT_EQ(logs.space.Enumerated(), nullptr);
  int small = 0, draws = 4000;
  for (int i = 0; i < draws; ++i) {
    Config c = logs.space.Canonicalize(logs.space.SampleUniform(rng), &rng);
    ASSERT_TRUE(logs.space.Feasible(c));
    small += std::stoll(logs.space.Named(c).at("block")) <= 32;
  }
  EXPECT_GT(small, draws * 0.35);
  EXPECT_LT(small, draws * 0.65);
  const Parameter& block = logs.space.param(0);
  double sum = 0;
  for (size_t k = 0; k < block.cardinality(); ++k) sum += block.SampleProbability(k);
  EXPECT_NEAR(sum, 1, 1e-9);
  EXPECT_GT(block.SampleProbability(0), 100 * block.SampleProbability(1000));  // 1 is likelier than 1001

  // One that nothing meets is known empty, not guessed from random draws.
  SpaceFile none = Load(R"(
parameters:
  - {name: bx, type: int, low: 1, high: 1024}
  - {name: lr, type: float, low: 0.001, high: 0.1}
  - {name: by, type: int, low: 1, high: 1024}
constraints:
  - "bx * by == 1031 * 2"
)");
  EXPECT_TRUE(none.space.ConstrainedCoreEmpty());
}

// Large ints pass exactly (15 significant digits made 1000000000000005 into 1e15, below low, and
// every value the same), and a range wider than a double can subtract still spreads its values.
TEST(SearchSpaceTest, LargeIntsAndWideRangesKeepTheirValues) {
  SpaceFile f = Load(R"(
parameters:
  - {name: n, type: int, low: 1000000000000001, high: 1000000000000009}
  - {name: x, type: float, low: -1.7e308, high: 1.7e308}
  - {name: y, type: float, low: 1.0e-200, high: 1.0e200, log: true}
)");
  const Parameter& n = f.space.params()[0];
  ASSERT_EQ(n.cardinality(), 9u);
  for (int i = 0; i < 9; ++i) {
    EXPECT_EQ(std::get<int64_t>(n.ValueAt(i)), 1000000000000001 + i);
    EXPECT_EQ(n.CoordOf(n.ValueAt(i)), std::optional<double>(i));
  }
  const Parameter& x = f.space.params()[1];
  EXPECT_EQ(std::get<double>(x.ValueAt(0.5)), 0.0);
  EXPECT_NEAR(*x.CoordOf(Value{8.5e307}), 0.75, 1e-12);
  const Parameter& y = f.space.params()[2];
  EXPECT_NEAR(std::get<double>(y.ValueAt(0.5)), 1.0, 1e-12);
  EXPECT_NEAR(*y.CoordOf(Value{1.0e100}), 0.75, 1e-12);
}

TEST(SearchSpaceTest, ConstraintsPruneEnumeration) {
  SpaceFile f = Load(R"(
parameters:
  - {name: bx, type: ordinal, values: [1, 2, 4, 8, 16, 32, 64]}
  - {name: by, type: ordinal, values: [1, 2, 4, 8, 16, 32, 64]}
  - {name: unroll, type: categorical, values: [yes, no]}
constraints:
  - "bx * by <= 64"
  - "bx * by >= 4 or unroll == 'no'"
)");
  const auto* all = f.space.Enumerated();
  ASSERT_NE(all, nullptr);
  size_t expected = 0;
  for (int i = 0; i < 7; ++i)
    for (int j = 0; j < 7; ++j)
      for (int u = 0; u < 2; ++u)
        if ((1 << i) * (1 << j) <= 64 && ((1 << i) * (1 << j) >= 4 || u == 1)) ++expected;
  EXPECT_EQ(all->size(), expected);
  for (const Config& c : *all) EXPECT_TRUE(f.space.Feasible(c));
}

TEST(SearchSpaceTest, RejectsBadDefinitions) {
  EXPECT_FALSE(ParseSpaceYaml("parameters: []", "x").ok());
  EXPECT_FALSE(ParseSpaceYaml("parameters:\n  - {name: a, type: int, low: 5, high: 1}", "x").ok());
  EXPECT_FALSE(ParseSpaceYaml("parameters:\n  - {name: a, type: weird, values: [1]}", "x").ok());
  EXPECT_FALSE(ParseSpaceYaml("parameters:\n  - {name: a, type: ordinal, values: [1, 1]}", "x").ok());
  EXPECT_FALSE(ParseSpaceYaml("parameters:\n  - {name: a, type: ordinal, values: [1, 2], default: 3}", "x").ok());
  EXPECT_FALSE(ParseSpaceYaml("parameters:\n  - {name: a, type: float, low: 0, high: 1, log: true}", "x").ok());
  auto unknown = ParseSpaceYaml("parameters:\n  - {name: a, type: int, low: 1, high: 4}\nconstraints: ['b < 2']", "s.yaml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("unknown parameter 'b'"), std::string::npos);
  // A condition may only read earlier parameters.
  EXPECT_FALSE(ParseSpaceYaml("parameters:\n  - {name: a, type: int, low: 1, high: 4, condition: 'b > 1'}\n"
                              "  - {name: b, type: int, low: 1, high: 4}",
                              "x")
                   .ok());
  EXPECT_FALSE(ParseSpaceYaml("parameters: [", "x").ok());
}

// Duplicates are found by sorting (pairwise, 40,000 values took 6 s to load): far apart in the
// list, 1 and 1.0 as one value, and text that looks like a number apart from the number.
TEST(SearchSpaceTest, ValuesListedTwiceAreFoundAnywhereInALongList) {
  std::string list;
  for (int i = 0; i < 20000; ++i) list += (i ? ", " : "") + std::to_string(i);
  auto message = [](const std::string& yaml) {
    auto f = ParseSpaceYaml(yaml, "s.yaml");
    return f.ok() ? std::string("accepted") : f.status().message();
  };
  EXPECT_EQ(message("parameters:\n  - {name: a, type: ordinal, values: [" + list + "]}"), "accepted");
  EXPECT_EQ(message("parameters:\n  - {name: a, type: ordinal, values: [" + list + ", 3.0]}"),
            "s.yaml: line 2: parameter 'a': value 3 listed twice");
  EXPECT_EQ(message("parameters:\n  - {name: a, type: categorical, values: [x, " + list + ", '7', y, x]}"),
            "s.yaml: line 2: parameter 'a': value x listed twice");
  EXPECT_EQ(message("parameters:\n  - {name: a, type: categorical, values: ['7', " + list + "]}"), "accepted");
}

// A bad expression names the YAML line it is on, not only its own column: a space file may hold
// dozens of constraints and conditions.
TEST(SearchSpaceTest, ExpressionErrorsNameTheirLine) {
  auto constraint = ParseSpaceYaml(
      "parameters:\n  a: {values: [1, 2, 3]}\n  b: {values: [1, 2]}\nconstraints:\n  - a * b <= 4\n  - a * c <= 2\n",
      "s.yaml");
  ASSERT_FALSE(constraint.ok());
  EXPECT_EQ(constraint.status().message(),
            "s.yaml: line 6: constraint: expression \"a * c <= 2\": column 5: unknown parameter 'c'");
  auto condition = ParseSpaceYaml(
      "parameters:\n  a: {values: [1, 2, 3]}\n  b:\n    values: [1, 2]\n    condition: \"a == (1\"\n", "s.yaml");
  ASSERT_FALSE(condition.ok());
  EXPECT_EQ(condition.status().message().rfind("s.yaml: line 5: condition of parameter 'b'", 0), 0u)
      << condition.status().message();
}

// A misspelt field or section would otherwise be ignored: `deafult` runs the study from another
// baseline, `constraint:` samples what the user meant to exclude. Errors name file, line and field.
TEST(SearchSpaceTest, TyposAreErrorsNamingTheFileLineAndField) {
  auto message = [](const std::string& yaml) {
    auto f = ParseSpaceYaml(yaml, "s.yaml");
    return f.ok() ? std::string("accepted") : f.status().message();
  };
  EXPECT_EQ(message("parameters:\n  - {name: a, type: int, low: 1, high: 4}\n  - {name: b, type: int, low: "
                    "1, high: 4, deafult: 2}"),
            "s.yaml: line 3: parameter 'b': unknown field 'deafult' (known: name, type, low, high, step, "
            "log, default, "
            "values, condition, fixes)");
  EXPECT_EQ(message("parameters:\n  - {name: a, type: int, low: 1, high: 4}\nconstraint: ['a < 2']"),
            "s.yaml: line 3: unknown field 'constraint' (known: parameters, constraints, env)");
  EXPECT_EQ(message("parameters:\n  - {name: a, type: int, low: 1, high: 4, log: maybe}"),
            "s.yaml: line 2: parameter 'a': log: must be true or false (got 'maybe')");
  EXPECT_EQ(message("parameters:\n  - {name: a, type: int, low: 1, high: 4, default: 9}"),
            "s.yaml: line 2: parameter 'a': default 9 is outside its range 1..4");
  EXPECT_EQ(message("parameters:\n  - {name: a, type: float, low: 0, high: 1, step: 0.25, default: 0.3}"),
            "s.yaml: line 2: parameter 'a': default 0.3 is not low + a multiple of step 0.25");
  EXPECT_EQ(message("parameters:\n  - {name: f, type: categorical, values: [nchw, nhwc], fixes: "
                    "{layout_conversion: nwhc}}"),
            "s.yaml: line 2: parameter 'f': fixes.layout_conversion: nwhc is not one of its values");
  EXPECT_EQ(message("parameters:\n  a: {type: int, low: 1, high: 4, log: true}"), "accepted");
  // A condition no configuration meets: the parameter would never be tuned.
  EXPECT_EQ(message("parameters:\n  - {name: opt, type: categorical, values: [sgd, adam]}\n"
                    "  - {name: m, type: float, low: 0, high: 1, step: 0.5, condition: \"opt == 'sdg'\"}"),
            "s.yaml: line 3: parameter 'm': its condition \"opt == 'sdg'\" holds in no configuration of the space");
  EXPECT_EQ(message("parameters:\n  - {name: opt, type: categorical, values: [sgd, adam]}\n"
                    "  - {name: lr, type: float, low: 0.001, high: 1, log: true}\n"
                    "  - {name: m, type: float, low: 0, high: 1, condition: \"opt == 'sdg'\"}"),
            "s.yaml: line 4: parameter 'm': its condition \"opt == 'sdg'\" holds in no configuration of the space");
  EXPECT_EQ(message("parameters:\n  - {name: opt, type: categorical, values: [sgd, adam]}\n"
                    "  - {name: m, type: float, low: 0, high: 1, condition: \"opt == 'sgd'\"}"),
            "accepted");
  // Defaults that break a constraint: the study ran without its baseline and said nothing.
  const std::string blocks =
      "parameters:\n  - {name: bx, type: ordinal, values: [8, 32], default: 32}\n"
      "  - {name: by, type: ordinal, values: [8, 64], default: 64}\nconstraints:\n";
  EXPECT_EQ(message(blocks + "  - \"bx * by <= 256\""),
            "s.yaml: line 5: the default configuration (bx=32 by=64) breaks the constraint \"bx * by <= 256\"");
  EXPECT_EQ(message(blocks + "  - \"bx * by <= 2048\""), "accepted");
}

// Defaults on some parameters only: no default configuration runs first, and the result has no
// baseline. It said nothing; a warning names the parameters without one (a conditional one
// among them only when its condition holds under the defaults).
TEST(SearchSpaceTest, DefaultsOnSomeParametersOnlyAreWarned) {
  auto warnings = [](const std::string& yaml) {
    auto f = ParseSpaceYaml(yaml, "s.yaml");
    EXPECT_TRUE(f.ok()) << f.status().message();
    return f.ok() ? f->warnings : std::vector<std::string>{"not parsed"};
  };
  const std::vector<std::string> w = warnings(
      "parameters:\n  - {name: a, type: int, low: 1, high: 100, default: 7}\n"
      "  - {name: b, type: float, low: 0.5, high: 2.5}\n  - {name: c, type: categorical, values: [u, v]}\n");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("s.yaml: b, c have no default"), std::string::npos) << w[0];
  const std::string conditional =
      "parameters:\n  - {name: opt, type: categorical, values: [sgd, adam], default: sgd}\n"
      "  - {name: m, type: float, low: 0, high: 1, condition: \"opt == '";
  EXPECT_EQ(warnings(conditional + "sgd'\"}\n").size(), 1u);
  EXPECT_TRUE(warnings(conditional + "adam'\"}\n").empty());  // m is off under the defaults
  EXPECT_TRUE(warnings("parameters:\n  - {name: b, type: float, low: 0.5, high: 2.5}\n").empty());
}

TEST(SearchSpaceTest, ImportsKernelTunerCacheParameters) {
  auto f = LoadSpaceFile(kFixtures + "/pnpoly_RTX_3090.json.gz");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->format, "kernel_tuner");
  ASSERT_EQ(f->space.size(), 4u);
  EXPECT_EQ(f->space.param(0).name, "between_method");
  EXPECT_EQ(f->space.param(1).cardinality(), 31u);  // block_size_x 32..992
  EXPECT_EQ(f->space.param(1).type, ParamType::kOrdinal);
  EXPECT_EQ(f->space.CartesianSize().value(), 4092.0);
  ASSERT_NE(f->space.Enumerated(), nullptr);
  EXPECT_EQ(f->space.Enumerated()->size(), 4092u);
}

TEST(SearchSpaceTest, ImportsKernelTunerRestrictions) {
  const char* text = R"({"tune_params_keys": ["bx", "by"], "tune_params": {"bx": [16, 32, 64], "by": [1, 2, 4]},
                         "restrictions": ["bx * by <= 64", "bx % 32 == 0 or by == 1"], "cache": {}})";
  auto f = ParseSpaceJson(text, "kt.json");
  ASSERT_TRUE(f.ok()) << f.status().message();
  // (16,1) (32,1) (32,2) (64,1): 4 of 9.
  ASSERT_NE(f->space.Enumerated(), nullptr);
  EXPECT_EQ(f->space.Enumerated()->size(), 4u);
}

// Text that is not JSON names the place and the reason (it said "not a JSON object"); a cache
// Kernel Tuner did not finish writing (the closing braces missing) still reads.
TEST(SearchSpaceTest, KernelTunerFileThatIsNotJsonSaysWhere) {
  auto f = ParseSpaceJson("{\"tune_params\": {\"bx\": [16, 32]},\n \"cache\": {\"16\": tru", "kt.json");
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("kt.json: not a Kernel Tuner cache or JSON space: parse error at line 2"),
            std::string::npos)
      << f.status().message();
  auto unfinished = ParseSpaceJson("{\"tune_params\": {\"bx\": [16, 32]}, \"cache\": {\"16\": {\"bx\": 16},\n",
                                   "kt.json");
  ASSERT_TRUE(unfinished.ok()) << unfinished.status().message();
  EXPECT_EQ(unfinished->space.size(), 1u);
}

TEST(SearchSpaceTest, ImportsT4SpaceWithConstraints) {
  auto f = LoadSpaceFile(kFixtures + "/convolution_space.json");
  ASSERT_TRUE(f.ok()) << f.status().message();
  EXPECT_EQ(f->format, "t4");
  EXPECT_EQ(f->space.size(), 8u);
  EXPECT_EQ(f->space.constraints().size(), 3u);
  ASSERT_NE(f->space.Enumerated(), nullptr);
  // The three conditions leave exactly the 6,768 configurations the RTX 3090 cache measured.
  EXPECT_EQ(f->space.Enumerated()->size(), 6768u);
  EXPECT_TRUE(f->space.DefaultConfig().has_value());
}

TEST(SearchSpaceTest, ReadsCacheRecordsWithFailures) {
  auto c = ReadKernelTunerCache(kFixtures + "/convolution_RTX_3090.json.gz", true);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->records.size(), 6768u);
  size_t failed = 0;
  for (const auto& r : c->records) {
    if (!r.objective) {
      ++failed;
      EXPECT_FALSE(r.error.empty());
    } else {
      double sum = 0;
      for (double t : r.times) sum += t;
      EXPECT_DOUBLE_EQ(*r.objective, sum / r.times.size());  // the mean of times, not `time`
    }
  }
  EXPECT_EQ(failed, 1548u);
  // An unfinished cache (Kernel Tuner writes it as it goes) still reads.
  auto cut = ParseKernelTunerCache(R"({"tune_params_keys": ["a"], "tune_params": {"a": [1, 2]}, "cache": {
      "1": {"a": 1, "time": 5.0, "times": [1.0, 3.0]},)", "cut.json", true);
  ASSERT_TRUE(cut.ok()) << cut.status().message();
  ASSERT_EQ(cut->records.size(), 1u);
  EXPECT_EQ(*cut->records[0].objective, 2.0);  // `time` was overwritten: the mean of `times` counts
}

}  // namespace
}  // namespace cprof::tune
