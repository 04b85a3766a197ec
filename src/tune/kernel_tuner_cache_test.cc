// Kernel Tuner caches as older versions and Python's json module write them: a failed configuration
// marked by a time of 1e20 or an empty string, NaN and Infinity tokens.
#include "tune/kernel_tuner_cache.h"

#include <gtest/gtest.h>

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

TEST(KernelTunerCacheTest, BrokenJsonStillSaysWhere) {
  auto c = ParseKernelTunerCache("{\"tune_params\": {\"bx\": [1, 2]}, \"cache\": {\"1\": NaNa}}", "bad.json", true);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("bad.json: not a Kernel Tuner cache or JSON space: parse error"),
            std::string::npos)
      << c.status().message();
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

}  // namespace
}  // namespace cprof::tune
