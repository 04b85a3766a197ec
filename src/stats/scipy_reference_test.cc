// Checks src/stats against SciPy: the reference values in testdata/scipy_reference.json were
// computed once by testdata/make_scipy_reference.py with Debian's python3-scipy.
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "stats/bootstrap.h"
#include "stats/effect_size.h"
#include "stats/mann_whitney.h"
#include "stats/multiple_testing.h"
#include "stats/outliers.h"
#include "stats/welch_t.h"

namespace cprof {
namespace {

using nlohmann::json;

const json& Reference() {
  static const json* doc = [] {
    std::ifstream in(std::string(CPROF_SOURCE_DIR) + "/src/stats/testdata/scipy_reference.json");
    auto* j = new json(json::parse(in));
    return j;
  }();
  return *doc;
}

std::vector<double> X(const std::string& name) { return Reference()["samples"][name]["x"].get<std::vector<double>>(); }
std::vector<double> Y(const std::string& name) { return Reference()["samples"][name]["y"].get<std::vector<double>>(); }

// Relative closeness, with an absolute floor for values near zero.
void ExpectClose(double actual, double expected, double rel, const std::string& what, double abs_floor = 0) {
  EXPECT_NEAR(actual, expected, std::max(abs_floor, rel * std::fabs(expected))) << what;
}

SampleStatistic StatByName(const std::string& s) {
  if (s == "mean") return SampleStatistic::Mean();
  if (s == "median") return SampleStatistic::Median();
  if (s == "p90") return SampleStatistic::Percentile(90);
  return SampleStatistic::Percentile(99);
}

TEST(ScipyReference, WelchTTestMatchesTtestInd) {
  int checked = 0;
  for (const auto& [name, ref] : Reference()["welch"].items()) {
    const WelchTTestResult r = WelchTTest(X(name), Y(name));
    ASSERT_TRUE(r.valid) << name;
    ExpectClose(r.t, ref["t"], 1e-10, name + " t");
    ExpectClose(r.df, ref["df"], 1e-10, name + " df");
    ExpectClose(r.p_value, ref["p_value"], 1e-8, name + " p");
    // SciPy's t quantile (cephes) and Boost's agree to ~1e-9 of the half-width.
    const double half = (ref["ci95_high"].get<double>() - ref["ci95_low"].get<double>()) / 2;
    EXPECT_NEAR(r.ci_low, ref["ci95_low"].get<double>(), 1e-8 * half) << name;
    EXPECT_NEAR(r.ci_high, ref["ci95_high"].get<double>(), 1e-8 * half) << name;
    ++checked;
  }
  EXPECT_GE(checked, 10);
}

TEST(ScipyReference, MannWhitneyMatchesAutoMethod) {
  int exact = 0, asymptotic = 0;
  for (const auto& [name, ref] : Reference()["mann_whitney"].items()) {
    const std::vector<double> x = X(name), y = Y(name);
    const MannWhitneyResult r = MannWhitneyU(x, y);
    ASSERT_TRUE(r.valid);
    EXPECT_EQ(r.u1, ref["u1"].get<double>()) << name;
    const bool want_exact = ref["method"] == "exact";
    EXPECT_EQ(r.method_used == MannWhitneyMethod::kExact, want_exact) << name;
    (want_exact ? exact : asymptotic)++;
    ExpectClose(r.p_value, ref["p_value"], 1e-9, name + " p");
    if (ref.contains("p_exact")) {
      ExpectClose(MannWhitneyU(x, y, MannWhitneyMethod::kExact).p_value, ref["p_exact"], 1e-9, name + " p exact");
    }
    if (ref.contains("p_asymptotic")) {
      ExpectClose(MannWhitneyU(x, y, MannWhitneyMethod::kAsymptotic).p_value, ref["p_asymptotic"], 1e-9,
                  name + " p asymptotic");
    }
  }
  EXPECT_GE(exact, 4);
  EXPECT_GE(asymptotic, 4);
}

TEST(ScipyReference, HodgesLehmannAndCliffsDelta) {
  for (const auto& [name, ref] : Reference()["hodges_lehmann"].items())
    ExpectClose(HodgesLehmannShift(X(name), Y(name)), ref.get<double>(), 1e-12, name);
  for (const auto& [name, ref] : Reference()["cliffs_delta"].items())
    EXPECT_DOUBLE_EQ(CliffsDelta(X(name), Y(name)), ref.get<double>()) << name;
}

// The BCa step alone, fed SciPy's own bootstrap replicates: must agree to rounding.
TEST(ScipyReference, BcaFromScipyReplicatesIsExact) {
  int checked = 0;
  for (const json& c : Reference()["bootstrap_bca"]) {
    if (!c.contains("replicates")) continue;
    const std::string name = c["sample"];
    const SampleStatistic stat = StatByName(c["statistic"]);
    const std::vector<double> x = X(name), y = Y(name);
    std::vector<std::vector<double>> jk;
    double estimate = 0;
    if (c["two_sample"]) {
      const double sx = stat.Of(x), sy = stat.Of(y);
      estimate = sy / sx;
      std::vector<double> jx = JackknifeValues(x, stat), jy = JackknifeValues(y, stat);
      for (double& v : jx) v = sy / v;
      for (double& v : jy) v = v / sx;
      jk = {jx, jy};
    } else {
      estimate = stat.Of(x);
      jk = {JackknifeValues(x, stat)};
    }
    ExpectClose(estimate, c["estimate"], 1e-12, name + " estimate");
    const BootstrapResult r = BcaFromReplicates(estimate, c["replicates"].get<std::vector<double>>(), jk, {});
    ASSERT_TRUE(r.valid);
    ASSERT_FALSE(r.degenerate);
    ExpectClose(r.acceleration, c["acceleration"], 1e-9, name + " a_hat", 1e-12);
    ExpectClose(r.low, c["low"], 1e-9, name + " low");
    ExpectClose(r.high, c["high"], 1e-9, name + " high");
    ++checked;
  }
  EXPECT_GE(checked, 5);
}

// End to end with our own resampling: the bounds differ from SciPy's only by Monte Carlo error.
TEST(ScipyReference, BootstrapBcaAgreesWithinMonteCarloError) {
  for (const json& c : Reference()["bootstrap_bca"]) {
    const std::string name = c["sample"];
    const std::string what = name + " " + c["statistic"].get<std::string>();
    const SampleStatistic stat = StatByName(c["statistic"]);
    BootstrapOptions opt;
    opt.resamples = 9999;
    const BootstrapResult r =
        c["two_sample"] ? BootstrapBcaRatio(X(name), Y(name), stat, opt) : BootstrapBca(X(name), stat, opt);
    ASSERT_TRUE(r.valid) << what;
    const double width = c["high"].get<double>() - c["low"].get<double>();
    EXPECT_NEAR(r.low, c["low"].get<double>(), 0.12 * width) << what;
    EXPECT_NEAR(r.high, c["high"].get<double>(), 0.12 * width) << what;
    ExpectClose(r.acceleration, c["acceleration"], 1e-9, what + " a_hat", 1e-12);
  }
}

TEST(ScipyReference, HolmAndBenjaminiHochbergMatchTheirDefinitions) {
  for (const json& c : Reference()["holm"]) {
    const std::vector<double> p = c["p"].get<std::vector<double>>();
    const std::vector<double> want = c["adjusted"].get<std::vector<double>>();
    const std::vector<double> got = HolmAdjust(p);
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-15);
    const std::vector<double> want_bh = c["bh"].get<std::vector<double>>();
    const std::vector<double> got_bh = BenjaminiHochbergAdjust(p);
    for (size_t i = 0; i < got_bh.size(); ++i) EXPECT_NEAR(got_bh[i], want_bh[i], 1e-15) << i;
  }
}

TEST(ScipyReference, MadOutliersMatchMedianAbsDeviation) {
  for (const json& c : Reference()["mad_outliers"]) {
    const std::string name = c["sample"];
    const std::vector<double> v = c.contains("values") ? c["values"].get<std::vector<double>>() : X(name);
    const OutlierReport o = FlagMadOutliers(v);
    ExpectClose(o.median, c["median"], 1e-12, name);
    ExpectClose(o.mad_normal, c["mad_normal"], 1e-12, name);
    EXPECT_EQ(o.indices, c["outliers"].get<std::vector<size_t>>()) << name;
  }
}

}  // namespace
}  // namespace cprof
