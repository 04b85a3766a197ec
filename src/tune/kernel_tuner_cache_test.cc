// Kernel Tuner caches as older versions and Python's json module write them: a failed configuration
// marked by a time of 1e20 or an empty string, NaN and Infinity tokens.
#include "tune/kernel_tuner_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "base/byte_source.h"
#include "tune/replay_evaluator.h"
#include "tune/space_file.h"

namespace cprof::tune {
namespace {

constexpr const char* kCache = R"({
"tune_params_keys": ["bx"],
"tune_params": {"bx": [16, 32, 64, 128, 256, 512]},
"cache": {
 "16": {"bx": 16, "time": 2.0, "times": [1.5, 2.5]},
 "32": {"bx": 32, "time": 1e20},
 "64": {"bx": 64, "time": "", "GFLOP/s": NaN},
 "128": {"bx": 128, "time": 3.0, "GFLOP/s": Infinity},
 "256": {"bx": 256, "time": -1},
 "512": {"bx": 512, "time": "RuntimeFailedConfig", "note": "NaN in a string stays"}
}})";

TEST(KernelTunerCacheTest, OldErrorMarksAndNonFiniteTokensAreFailures) {
  auto c = ParseKernelTunerCache(kCache, "old.json", /*with_records=*/true);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->records.size(), 6u);
  std::map<int64_t, const KernelTunerRecord*> by_bx;
  for (const KernelTunerRecord& r : c->records) by_bx[std::get<int64_t>(r.values[0])] = &r;
  EXPECT_DOUBLE_EQ(*by_bx[16]->objective, 2.0);  // the mean of `times`
  EXPECT_FALSE(by_bx[32]->objective.has_value());
  EXPECT_EQ(by_bx[32]->error, "InvalidConfig (time 1e+20)");
  EXPECT_EQ(by_bx[64]->error, "InvalidConfig");
  EXPECT_DOUBLE_EQ(*by_bx[128]->objective, 3.0);
  EXPECT_EQ(by_bx[256]->error, "InvalidConfig (time -1)");
  EXPECT_EQ(by_bx[512]->error, "RuntimeFailedConfig");
}

// A cache whose `objective` is another metric: each record's value is read from that key (a
// rate may be 0), a failure still from an error string in `time`, and the direction from the file
// or Kernel Tuner's default for the name. Before, every record without a number in `time` failed.
TEST(KernelTunerCacheTest, TheFilesObjectiveNamesTheValueAndItsDirection) {
  constexpr const char* kRates = R"({"tune_params_keys": ["bx"], "tune_params": {"bx": [16, 32, 64, 128]},
    "objective": "GFLOP/s", "cache": {
     "16": {"bx": 16, "time": 4.0, "times": [4.0], "GFLOP/s": 250.0},
     "32": {"bx": 32, "time": "CompilationFailedConfig", "GFLOP/s": "CompilationFailedConfig"},
     "64": {"bx": 64, "time": 9.0, "GFLOP/s": 0},
     "128": {"bx": 128, "time": 2.0}}})";
  auto c = ParseKernelTunerCache(kRates, "rates.json", true);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->objective, "GFLOP/s");
  EXPECT_EQ(c->higher_is_better, std::optional<bool>(true));
  ASSERT_EQ(c->records.size(), 4u);
  std::map<int64_t, const KernelTunerRecord*> by_bx;
  for (const KernelTunerRecord& r : c->records) by_bx[std::get<int64_t>(r.values[0])] = &r;
  EXPECT_DOUBLE_EQ(*by_bx[16]->objective, 250.0);  // not the time
  EXPECT_EQ(by_bx[32]->error, "CompilationFailedConfig");
  EXPECT_DOUBLE_EQ(*by_bx[64]->objective, 0.0);
  EXPECT_EQ(by_bx[128]->error, "no measurement of 'GFLOP/s'");
  // The file's own direction wins; an unknown name without one has none; time is the default.
  auto score = ParseKernelTunerCache(R"({"tune_params": {"m": ["a"]}, "objective": "score",
    "objective_higher_is_better": true, "cache": {"a": {"m": "a", "score": -0.3}}})",
                                     "s.json", true);
  ASSERT_TRUE(score.ok()) << score.status().message();
  EXPECT_EQ(score->higher_is_better, std::optional<bool>(true));
  EXPECT_DOUBLE_EQ(*score->records[0].objective, -0.3);  // a score may be negative
  auto unknown = ParseKernelTunerCache(R"({"tune_params": {"m": ["a"]}, "objective": "score",
    "cache": {"a": {"m": "a", "score": 1}}})",
                                       "u.json", true);
  ASSERT_TRUE(unknown.ok());
  EXPECT_FALSE(unknown->higher_is_better.has_value());
  EXPECT_EQ(ParseKernelTunerCache(kCache, "old.json", true)->higher_is_better, std::optional<bool>(false));
  // A multi-objective cache: its first objective, in its first direction.
  auto listed = ParseKernelTunerCache(R"({"tune_params": {"m": ["a"]}, "objective": ["score", "energy"],
    "objective_higher_is_better": [true, false], "cache": {"a": {"m": "a", "score": 2, "energy": 5}}})",
                                      "l.json", true);
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  EXPECT_EQ(listed->objective, "score");
  EXPECT_EQ(listed->higher_is_better, std::optional<bool>(true));
  EXPECT_DOUBLE_EQ(*listed->records[0].objective, 2.0);
  auto bad = ParseKernelTunerCache(R"({"tune_params": {"m": ["a"]}, "objective": [3], "cache": {}})",
                                   "b.json", true);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message(),
            "b.json: 'objective' must name a metric (a string, or a list of them), not [3]");
}

TEST(KernelTunerCacheTest, BrokenJsonStillSaysWhere) {
  auto c = ParseKernelTunerCache("{\"tune_params\": {\"bx\": [1, 2]}, \"cache\": {\"1\": NaNa}}", "bad.json", true);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("bad.json: not a Kernel Tuner cache or JSON space: parse error"),
            std::string::npos)
      << c.status().message();
}

// A parameter name that is not a string was a json type_error, reported as an internal error that
// named no file.
TEST(KernelTunerCacheTest, AParameterKeyThatIsNotAStringNamesTheFile) {
  auto c = ParseKernelTunerCache(R"({"tune_params_keys": [7], "tune_params": {"7": [1]}, "cache": {}})",
                                 "k.json", true);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().message(), "k.json: tune_params_keys: 7 is not a parameter name (a string)");
}

// Kernel Tuner takes any Python in a restriction; one the expression language cannot read was an
// error that refused the whole cache (and stopped the benchmark). Now it is left out, saying so.
TEST(KernelTunerCacheTest, UnreadableRestrictionsAreLeftOutWithAWarning) {
  auto f = ParseSpaceJson(R"({"tune_params_keys": ["bx", "by"], "tune_params": {"bx": [1, 2, 4], "by": [1, 2]},
                              "restrictions": ["lambda p: p['bx'] > 1", "bx * by <= 4"], "cache": {}})",
                          "lambda.json");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->space.constraints().size(), 1u);
  EXPECT_EQ(f->space.constraints()[0].text(), "bx * by <= 4");
  ASSERT_EQ(f->warnings.size(), 1u);
  EXPECT_EQ(f->warnings[0].rfind("lambda.json: restrictions[0] left out (", 0), 0u) << f->warnings[0];
  EXPECT_EQ(f->space.Enumerated()->size(), 5u);  // (4, 2) breaks the one kept
}

// T4 results (Kernel Tuner's output file) read as a cache: the values the results hold become the
// parameter lists, a result that broke the restrictions is absent, other invalid ones failed.
TEST(KernelTunerCacheTest, T4ResultsReadAsACache) {
  constexpr const char* kT4 = R"({"schema_version": "1.0.0", "results": [
 {"configuration": {"bx": 32, "kind": "b"}, "times": {"runtimes": [1.0, 3.0]}, "invalidity": "correct",
  "correctness": 1, "measurements": [{"name": "time", "value": 2.5, "unit": "ms"}]},
 {"configuration": {"bx": 16, "kind": "b"}, "times": {}, "invalidity": "compile", "correctness": 0},
 {"configuration": {"bx": 64, "kind": "a"}, "times": {}, "invalidity": "constraints", "correctness": 0},
 {"configuration": {"bx": 16, "kind": "a"}, "times": {}, "invalidity": "correct", "correctness": 1,
  "measurements": [{"name": "GFLOP/s", "value": 9}, {"name": "time", "value": 4.0}]},
 {"configuration": {"bx": 32, "kind": "a"}, "times": {}, "invalidity": "runtime", "correctness": 0}
]})";
  auto c = ParseKernelTunerCache(kT4, "t4.json", /*with_records=*/true);
  ASSERT_TRUE(c.ok()) << c.status().message();
  ASSERT_EQ(c->tune_params.size(), 2u);
  EXPECT_EQ(c->tune_params[0].first, "bx");
  EXPECT_EQ(c->tune_params[0].second, (std::vector<Value>{int64_t{16}, int64_t{32}, int64_t{64}}));  // ascending
  EXPECT_EQ(c->tune_params[1].second, (std::vector<Value>{std::string("b"), std::string("a")}));     // as seen
  ASSERT_EQ(c->records.size(), 4u);  // the one that broke the restrictions is absent
  EXPECT_DOUBLE_EQ(*c->records[0].objective, 2.0);  // the mean of the runtimes, as a cache's `times`
  EXPECT_EQ(c->records[1].error, "CompilationFailedConfig");
  EXPECT_DOUBLE_EQ(*c->records[2].objective, 4.0);  // no runtimes: the `time` measurement
  EXPECT_EQ(c->records[3].error, "RuntimeFailedConfig");
  auto space = ParseSpaceJson(kT4, "t4.json");
  ASSERT_TRUE(space.ok()) << space.status().message();
  EXPECT_EQ(space->space.size(), 2u);
  EXPECT_EQ(ParseKernelTunerCache(R"({"results": []})", "e.json", true).status().code(), StatusCode::kInvalidInput);
  // 2 and 2.0 are one value; an invalidity that is no text is a failure, not a crash.
  auto mixed = ParseKernelTunerCache(R"({"results": [
 {"configuration": {"a": 2}, "times": {"runtimes": [1.0]}, "invalidity": "correct"},
 {"configuration": {"a": 2.0}, "times": {"runtimes": [2.0]}, "invalidity": "correct"},
 {"configuration": {"a": 3}, "times": {}, "invalidity": null}]})",
                                     "mixed.json", true);
  ASSERT_TRUE(mixed.ok()) << mixed.status().message();
  EXPECT_EQ(mixed->tune_params[0].second.size(), 2u);
  EXPECT_EQ(mixed->records[2].error, "InvalidConfig (null)");
  auto odd = ParseKernelTunerCache(R"({"results": [{"configuration": {"a": 1}}, {"configuration": {"b": 1}}]})",
                                   "odd.json", true);
  ASSERT_FALSE(odd.ok());
  EXPECT_EQ(odd.status().message(), "odd.json: results[1] lacks parameter 'a' or holds no number or text");
}

// T4 results as Kernel Tuner's conversion of a cache writes them (kernel_tuner.cache cli_tools
// convert_t4): every result "correct", a failed one with the error string as its measurement, and
// the cache's objective named in `objectives` and measured under that name.
TEST(KernelTunerCacheTest, T4ResultsConvertedFromACacheKeepItsObjectiveAndFailures) {
  auto c = ParseKernelTunerCache(R"({"schema_version": "1.0.0", "results": [
 {"configuration": {"bx": 32}, "times": {"runtimes": [1.0, 3.0]}, "invalidity": "correct", "objectives": ["GFLOP/s"],
  "measurements": [{"name": "GFLOP/s", "value": 800.0, "unit": ""}]},
 {"configuration": {"bx": 64}, "times": {"runtimes": []}, "invalidity": "correct", "objectives": ["GFLOP/s"],
  "measurements": [{"name": "GFLOP/s", "value": "CompilationFailedConfig", "unit": ""}]}]})",
                                 "conv_T4.json", true);
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->objective, "GFLOP/s");
  EXPECT_EQ(c->higher_is_better, std::optional<bool>(true));
  ASSERT_EQ(c->records.size(), 2u);
  EXPECT_DOUBLE_EQ(*c->records[0].objective, 800.0);  // the rate, not the mean of the runtimes
  EXPECT_EQ(c->records[1].error, "CompilationFailedConfig");
  auto t = ParseKernelTunerCache(R"({"results": [
 {"configuration": {"bx": 64}, "times": {"runtimes": []}, "invalidity": "correct", "objectives": ["time"],
  "measurements": [{"name": "time", "value": "RuntimeFailedConfig", "unit": ""}]}]})",
                                 "time_T4.json", true);
  ASSERT_TRUE(t.ok()) << t.status().message();
  EXPECT_EQ(t->records[0].error, "RuntimeFailedConfig");
}

// The pnpoly fixture written as T4 results replays to the same measurements and failures.
TEST(KernelTunerCacheTest, PnpolyAsT4ResultsReplaysAlike) {
  const std::string cache_path = CPROF_FIXTURES_DIR "/tuning/pnpoly_RTX_3090.json.gz";
  auto text = ReadWholeFile(cache_path);
  ASSERT_TRUE(text.ok());
  const nlohmann::json cache = nlohmann::json::parse(*text);
  nlohmann::json results = nlohmann::json::array();
  for (const auto& [key, rec] : cache["cache"].items()) {
    nlohmann::json config;
    for (const auto& [name, values] : cache["tune_params"].items()) config[name] = rec[name];
    const bool failed = rec["time"].is_string();
    nlohmann::json r = {{"configuration", config},
                        {"times", {{"runtimes", failed ? nlohmann::json::array() : rec["times"]}}},
                        {"invalidity", failed ? "runtime" : "correct"},
                        {"correctness", failed ? 0 : 1}};
    results.push_back(r);
  }
  const auto t4_path = std::filesystem::temp_directory_path() / ("cprof_t4_" + std::to_string(::getpid()) + ".json");
  std::ofstream(t4_path) << nlohmann::json{{"schema_version", "1.0.0"}, {"results", results}}.dump();
  auto original_space = LoadSpaceFile(cache_path);
  auto t4_space = LoadSpaceFile(t4_path.string());
  ASSERT_TRUE(original_space.ok() && t4_space.ok()) << t4_space.status().message();
  auto original = ReplayEvaluator::Open(cache_path, original_space->space, false);
  auto t4 = ReplayEvaluator::Open(t4_path.string(), t4_space->space, false);
  ASSERT_TRUE(original.ok() && t4.ok()) << t4.status().message();
  std::vector<double> a = (*original)->valid_objectives(), b = (*t4)->valid_objectives();
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  EXPECT_EQ(a.size(), 3774u);
  EXPECT_EQ(a, b);
  EXPECT_EQ((*original)->failed_count(), (*t4)->failed_count());
  std::filesystem::remove(t4_path);
}

}  // namespace
}  // namespace cprof::tune
