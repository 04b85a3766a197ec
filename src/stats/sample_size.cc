// Sample-size rules for tests and intervals.
#include "stats/sample_size.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>

#include "stats/mann_whitney.h"

namespace cprof {

std::string_view TwoSampleTestName(TwoSampleTest test) {
  switch (test) {
    case TwoSampleTest::kWelchT: return "t-test";
    case TwoSampleTest::kMannWhitney: return "mann-whitney";
    case TwoSampleTest::kBootstrap: return "bootstrap";
  }
  return "?";
}

bool ParseTwoSampleTest(std::string_view name, TwoSampleTest* out) {
  for (TwoSampleTest t : {TwoSampleTest::kWelchT, TwoSampleTest::kMannWhitney, TwoSampleTest::kBootstrap}) {
    if (name == TwoSampleTestName(t)) {
      *out = t;
      return true;
    }
  }
  if (name == "welch" || name == "t_test" || name == "ttest") *out = TwoSampleTest::kWelchT;
  else if (name == "mann_whitney" || name == "mwu" || name == "wilcoxon") *out = TwoSampleTest::kMannWhitney;
  else return false;
  return true;
}

int64_t MinSamplesForInterval(SampleStatistic stat) {
  if (stat.kind == SampleStatistic::Kind::kMean) return 10;
  const double tail = std::min(stat.q, 1 - stat.q);
  if (tail <= 0) return INT64_MAX;  // min and max have no useful interval
  return std::max<int64_t>(10, static_cast<int64_t>(std::ceil(5 / tail - 1e-9)));
}

std::vector<std::string> SampleSizeWarnings(TwoSampleTest test, SampleStatistic stat, int64_t n_before,
                                            int64_t n_after, double alpha) {
  std::vector<std::string> w;
  const int64_t n_min = std::min(n_before, n_after);
  if (n_min < 2) {
    w.push_back(fmt::format("{} before and {} after: at least 2 values per side are needed for any test", n_before,
                            n_after));
    return w;
  }
  const int64_t need = MinSamplesForInterval(stat);
  if (n_min < need) {
    if (stat.kind == SampleStatistic::Kind::kQuantile && stat.q != 0.5) {
      w.push_back(fmt::format(
          "a {} interval needs at least {} values per side (5 beyond the percentile); this has {} before and {} "
          "after, so the interval rests on the few most extreme values and is too narrow",
          stat.Name(), need, n_before, n_after));
    } else {
      w.push_back(fmt::format("{} before and {} after: intervals from fewer than {} values per side under-cover "
                              "(they are too narrow)",
                              n_before, n_after, need));
    }
  }
  if (test == TwoSampleTest::kMannWhitney) {
    const double floor_p = MannWhitneyMinPValue(n_before, n_after);
    if (floor_p >= alpha) {
      w.push_back(fmt::format("with {} and {} values the Mann-Whitney test cannot reach p < {:g} (the smallest "
                              "possible p is {:.3g}): no change can be called significant; collect more runs or steps",
                              n_before, n_after, alpha, floor_p));
    }
  }
  if (test == TwoSampleTest::kWelchT && n_min < 5) {
    w.push_back(fmt::format("Welch's t-test on {} and {} values assumes the values are near-normal; with so few, "
                            "skew or one outlier decides the result",
                            n_before, n_after));
  }
  return w;
}

}  // namespace cprof
