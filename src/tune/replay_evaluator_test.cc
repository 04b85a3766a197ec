// The replay evaluator: a cache's semantics (mean of `times`, absent = infeasible), and a space
// that cannot meet its cache refused before the study starts.
#include "tune/replay_evaluator.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "testing/test_dir.h"
#include "tune/space_file.h"

namespace cprof::tune {
namespace {

TEST(ReplayEvaluatorTest, CacheSemantics) {
  const std::string cache = CPROF_FIXTURES_DIR "/tuning/convolution_RTX_3090.json.gz";
  auto file = LoadSpaceFile(cache);
  ASSERT_TRUE(file.ok()) << file.status().message();
  auto eval = ReplayEvaluator::Open(cache, file->space, false);
  ASSERT_TRUE(eval.ok()) << eval.status().message();
  EXPECT_EQ((*eval)->valid_objectives().size(), 5220u);
  EXPECT_EQ((*eval)->failed_count(), 1548u);
  Rng rng(1);
  std::map<std::string, std::string> p = {
      {"block_size_x", "2"}, {"block_size_y", "32"}, {"filter_height", "15"}, {"filter_width", "15"},
      {"read_only", "0"},    {"tile_size_x", "1"},   {"tile_size_y", "1"},    {"use_padding", "0"}};
  EvalResult ok = (*eval)->Evaluate(p, rng);
  ASSERT_EQ(ok.state, TrialState::kComplete);
  EXPECT_NEAR(ok.metrics.at("time"), 7.0016, 1e-4);  // the mean of its 32 `times`
  p["block_size_x"] = "1";
  p["block_size_y"] = "1";
  EXPECT_EQ((*eval)->Evaluate(p, rng).state, TrialState::kInfeasible);  // not in the cache
}

// A space with the cache's parameter names but values it never holds made every proposal absent:
// the study walked past 100,000 of them and ended with one evaluation, exit 0.
TEST(ReplayEvaluatorTest, ASpaceWhoseValuesTheCacheNeverHoldsIsRefused) {
  const std::string cache = TestFile("values.json");
  std::ofstream(cache) << R"({"tune_params_keys": ["bx", "tile"], "tune_params": {"bx": [32, 64], "tile": [1, 2, 4]},
    "cache": {"32,1": {"bx": 32, "tile": 1, "time": 1.0}, "64,4": {"bx": 64, "tile": 4, "time": 2.0}}})";
  auto open = [&](const std::string& yaml) -> std::string {
    auto f = ParseSpaceYaml(yaml, "s.yaml");
    EXPECT_TRUE(f.ok()) << f.status().message();
    auto r = ReplayEvaluator::Open(cache, f->space, false);
    return r.ok() ? "opened" : r.status().message();
  };
  EXPECT_EQ(open("parameters:\n  - {name: bx, type: ordinal, values: [32, 64]}\n"
                 "  - {name: tile, type: float, low: 1, high: 20}\n"),
            cache + ": parameter 'tile' is a continuous range in the space, but the cache measured a list of values "
                    "(1, 2, 4): give it those values");
  EXPECT_EQ(open("parameters:\n  - {name: bx, type: int, low: 33, high: 40}\n"
                 "  - {name: tile, type: ordinal, values: [1, 2, 4]}\n"),
            cache + ": none of the cache's values of parameter 'bx' (32, 64) is a value of it in the space");
  // Some values the cache lacks are hidden constraints, not an error; the text "1" matches 1.
  EXPECT_EQ(open("parameters:\n  - {name: bx, type: int, low: 30, high: 40}\n"
                 "  - {name: tile, type: categorical, values: [\"1\", \"8\"]}\n"),
            "opened");
}

}  // namespace
}  // namespace cprof::tune
