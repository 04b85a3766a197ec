// The planted-root-cause workloads of examples/diagnose/, traced for real with the built
// `cann-profiler trace` (Debian's python3-torch, CPU) and diagnosed: each workload's planted
// cause must rank first, and the healthy workload must have no finding above 0.5 confidence.
// Workloads whose rule is not registered yet are skipped, naming the rule.
// Set aside: the reference_blas finding, a cause of the machine, not of the workload: Debian's
// python3-torch runs matrix products on the reference BLAS (libblas.so.3), so every workload here
// with a sizeable matmul or 1x1 convolution has it (healthy: 84% of CPU samples in sgemm_). It
// must name the reference BLAS when present; the workload's own cause must rank first among the rest.
// Held fixed: glibc's heap. By default it hands freed activations back to the OS and every step
// faults them in again (layout_conversion.py: 35 -> 22 ms a step with the thresholds raised; at
// 12-18 us a fault on the test VM, page_fault_churn then outranks the planted cause). The workloads
// run with the thresholds raised, and page_fault_churn must then stay silent.
//
//   ctest -L slow -R DiagnoseWorkloads
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "analysis/diagnose/diagnose.h"
#include "analysis/diagnose/rules.h"
#include "import/import_trace.h"

namespace cprof {
namespace {

namespace fs = std::filesystem;

struct Workload {
  const char* script;    // examples/diagnose/<script>.py
  const char* expected;  // category id that must rank first; "" for the healthy workload
};

const Workload kWorkloads[] = {
    {"healthy", ""},
    {"host_gap", "host_gap"},
    {"dataloader", "dataloader"},
    {"memory_churn", "memory_churn"},
    {"thread_oversubscription", "thread_oversubscription"},
    {"gc_pauses", "gc"},
    {"launch_overhead", "launch_overhead"},
    {"layout_conversion", "layout_conversion"},
    {"tail_latency", "tail_latency"},
    {"fusion_candidate", "fusion_candidate"},
    {"affinity_api", "affinity_api"},
};

bool RuleRegistered(std::string_view category) {
  for (const std::unique_ptr<Rule>& r : AllRules()) {
    // A rule is named after its category, possibly with a device suffix (env_config_cpu).
    if (r->name() == category || r->name().starts_with(std::string(category) + "_")) return true;
  }
  return false;
}

std::string Describe(const Diagnosis& d) {
  std::ostringstream os;
  for (const Finding& f : d.findings)
    os << "  " << CategoryId(f.category) << " conf=" << f.confidence << " saving_ms=" << f.saving_ns / 1e6
       << " score=" << f.score() / 1e6 << " | " << f.title << "\n";
  return os.str();
}

class DiagnoseWorkloadsTest : public ::testing::TestWithParam<Workload> {
 protected:
  static void SetUpTestSuite() {
    torch_ok_ = std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") == 0;
    dir_ = fs::temp_directory_path() / ("cprof_diagnose_workloads_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  static void TearDownTestSuite() { fs::remove_all(dir_); }
  static inline bool torch_ok_ = false;
  static inline fs::path dir_;
};

TEST_P(DiagnoseWorkloadsTest, PlantedCauseRanksFirst) {
  const Workload& w = GetParam();
  const std::string binary = CPROF_BINARY_DIR "/cann-profiler";
  if (!fs::exists(binary)) GTEST_SKIP() << "build the cann-profiler target first";
  if (!torch_ok_) GTEST_SKIP() << "/usr/bin/python3 cannot import torch (Debian package python3-torch)";
  if (*w.expected && !RuleRegistered(w.expected)) GTEST_SKIP() << "rule " << w.expected << " has not landed yet";

  const fs::path pb = dir_ / (std::string(w.script) + ".pb");
  const fs::path log = dir_ / (std::string(w.script) + ".log");
  const std::string cmd = "MALLOC_MMAP_THRESHOLD_=33554432 MALLOC_TRIM_THRESHOLD_=1073741824 " + binary +
                          " trace --output " + pb.string() + " -- /usr/bin/python3 " CPROF_SOURCE_DIR
                          "/examples/diagnose/" + w.script + ".py >" + log.string() + " 2>&1";
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = std::system(cmd.c_str());
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::ifstream in(log);
  const std::string output((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_EQ(rc, 0) << output;
  // The workload's own last line is its JSON summary.
  EXPECT_NE(output.find("{\"workload\": "), std::string::npos) << output;

  StatusOr<Trace> trace = ImportTrace(pb.string());
  ASSERT_TRUE(trace.ok()) << trace.status().message();
  Diagnosis d = Diagnose(*trace, {});
  std::erase_if(d.findings, [](const Finding& f) {
    if (f.rule != "reference_blas") return false;
    EXPECT_NE(f.title.find("libblas"), std::string::npos) << f.title;
    return true;
  });
  // glibc's heap is held fixed, so page_fault_churn may only see mappings that its thresholds do
  // not cover (the interpreter's and libraries' own mmap/munmap: 65-94 faults per step on
  // memory_churn.py in one run of three here, 9-12% of step time; 167 per step, 22%, once in a
  // full parallel `make test` on 2 cores): a minor finding, never the first one.
  for (size_t i = 0; i < d.findings.size(); ++i) {
    const Finding& f = d.findings[i];
    if (f.rule != "page_fault_churn") continue;
    EXPECT_GT(i, 0u) << f.title << " (the heap is kept)\n" << Describe(d);
    for (const FindingMetric& m : f.metrics) {
      if (m.name == "page_fault_share") {
        EXPECT_LT(m.value, 0.3) << f.title << " (the heap is kept)";
      }
    }
  }
  EXPECT_GE(d.step_count, 10) << "the workload marks its steps";
  RecordProperty("traced_seconds", std::to_string(secs));
  // One line per workload for the log: what ranked first, how sure, what it saves.
  if (d.findings.empty()) {
    std::printf("[ workload ] %s: %.1f s traced; no findings\n", w.script, secs);
  } else {
    const Finding& top = d.findings.front();
    std::printf("[ workload ] %s: %.1f s traced; top %s conf=%.2f saving=%.1f ms | %s\n", w.script, secs,
                std::string(CategoryId(top.category)).c_str(), top.confidence, top.saving_ns / 1e6, top.title.c_str());
  }
  if (*w.expected == '\0') {
    for (const Finding& f : d.findings)
      EXPECT_LE(f.confidence, 0.5) << CategoryId(f.category) << ": " << f.title << "\n" << Describe(d);
    return;
  }
  ASSERT_FALSE(d.findings.empty()) << "nothing found in " << w.script;
  EXPECT_EQ(CategoryId(d.findings.front().category), w.expected) << Describe(d);
  EXPECT_GT(d.findings.front().confidence, 0.5) << Describe(d);
  EXPECT_GT(d.findings.front().saving_ns, 0) << Describe(d);
  EXPECT_FALSE(d.findings.front().events.empty()) << Describe(d);
}

INSTANTIATE_TEST_SUITE_P(Examples, DiagnoseWorkloadsTest, ::testing::ValuesIn(kWorkloads),
                         [](const ::testing::TestParamInfo<Workload>& i) { return std::string(i.param.script); });

}  // namespace
}  // namespace cprof
