// The metric registry: lookup, errors that list the available metrics, machine capabilities.
#include "stats/metric_registry.h"

#include <gtest/gtest.h>

namespace cprof {
namespace {

MachineCapabilities Caps(bool pmu, const char* pmu_error) {
  MachineCapabilities caps;
  caps.hardware_pmu = pmu;
  caps.pmu_error = pmu_error;
  caps.procfs = true;
  return caps;
}

TEST(MetricRegistryTest, FindsKnownMetrics) {
  MetricRegistry reg(Caps(true, ""));
  for (const char* name : {"latency", "p50_latency", "p99_latency", "step_time", "throughput",
                           "compute_util", "device_util", "mem", "mem_peak", "mem_bandwidth",
                           "cache_miss", "cpu_util"}) {
    auto m = reg.Find(name);
    ASSERT_TRUE(m.ok()) << name << ": " << m.status().message();
    EXPECT_EQ((*m)->name, name);
    EXPECT_FALSE((*m)->unit.empty());
  }
}

TEST(MetricRegistryTest, UnknownNameListsAvailableOnes) {
  MetricRegistry reg(Caps(false, "no PMU"));
  auto m = reg.Find("lantency");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kNotFound);
  EXPECT_NE(m.status().message().find("unknown metric 'lantency'"), std::string::npos);
  EXPECT_NE(m.status().message().find("available: compute_util, cpu_util"), std::string::npos);
  // Unavailable metrics are not offered.
  EXPECT_EQ(m.status().message().find("cache_miss"), std::string::npos);
}

TEST(MetricRegistryTest, PmuMetricsUnavailableWithoutPmu) {
  MetricRegistry reg(Caps(false, "no PMU"));
  auto m = reg.Find("cache_miss");
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(m.status().message().find("no PMU"), std::string::npos);
  EXPECT_NE(m.status().message().find("available: "), std::string::npos);
  EXPECT_TRUE(reg.Find("latency").ok());
}

TEST(MetricRegistryTest, FindAllSplitsCommas) {
  MetricRegistry reg(Caps(true, ""));
  auto ms = reg.FindAll("latency, cpu_util");
  ASSERT_TRUE(ms.ok());
  EXPECT_EQ(ms->size(), 2u);
  EXPECT_FALSE(reg.FindAll("latency,nope").ok());
  EXPECT_FALSE(reg.FindAll("").ok());
}

TEST(MetricRegistryTest, DefaultProbesThisMachine) {
  const MetricRegistry& reg = MetricRegistry::Default();
  EXPECT_TRUE(reg.Find("step_time").ok());
  EXPECT_FALSE(reg.AvailableNames().empty());
}

}  // namespace
}  // namespace cprof
