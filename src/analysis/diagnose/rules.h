// The rule registry: every rule the diagnosis runs, in one list (rules.cc). A rule file defines
// its class in an anonymous namespace and exports one factory declared here.
//
//   for (const std::unique_ptr<Rule>& r : AllRules()) r->Run(ctx, findings);
#pragma once

#include <memory>
#include <vector>

#include "analysis/diagnose/rule.h"

namespace cprof {

const std::vector<std::unique_ptr<Rule>>& AllRules();

// Factories, one per rule file in rules/ (keep alphabetical; one line each).
std::unique_ptr<Rule> MakeAffinityApiRule();            // rules/affinity_api_rule.cc
std::unique_ptr<Rule> MakeAicpuOpsRule();               // rules/aicpu_ops_rule.cc
std::unique_ptr<Rule> MakeCommAlignmentRule();          // rules/comm_alignment_rule.cc
std::unique_ptr<Rule> MakeDataloaderRule();             // rules/dataloader_rule.cc
std::unique_ptr<Rule> MakeDeviceIdleRule();             // rules/device_idle_rule.cc
std::unique_ptr<Rule> MakeDynamicShapeRule();           // rules/dynamic_shape_rule.cc
std::unique_ptr<Rule> MakeEnvConfigCpuRule();           // rules/env_config_cpu_rule.cc
std::unique_ptr<Rule> MakeExposedCommunicationRule();   // rules/exposed_communication_rule.cc
std::unique_ptr<Rule> MakeFusionCandidateRule();        // rules/fusion_candidate_rule.cc
std::unique_ptr<Rule> MakeGcRule();                     // rules/gc_rule.cc
std::unique_ptr<Rule> MakeHostDeviceSyncRule();         // rules/host_device_sync_rule.cc
std::unique_ptr<Rule> MakeHostGapRule();                // rules/host_gap_rule.cc
std::unique_ptr<Rule> MakeLaunchOverheadRule();         // rules/launch_overhead_rule.cc
std::unique_ptr<Rule> MakeLayoutConversionRule();       // rules/layout_conversion_rule.cc
std::unique_ptr<Rule> MakeMemoryChurnRule();            // rules/memory_churn_rule.cc
std::unique_ptr<Rule> MakeMemoryFragmentationRule();    // rules/memory_fragmentation_rule.cc
std::unique_ptr<Rule> MakeNpuAffinityApiRule();         // rules/npu_affinity_api_rule.cc
std::unique_ptr<Rule> MakeNpuEnvConfigRule();           // rules/npu_env_config_rule.cc
std::unique_ptr<Rule> MakeNpuExposedCommunicationRule(); // rules/npu_exposed_communication_rule.cc
std::unique_ptr<Rule> MakeNpuLayoutConversionRule();    // rules/npu_layout_conversion_rule.cc
std::unique_ptr<Rule> MakePageFaultChurnRule();         // rules/page_fault_churn_rule.cc
std::unique_ptr<Rule> MakeReferenceBlasRule();          // rules/reference_blas_rule.cc
std::unique_ptr<Rule> MakeSlowRankRule();               // rules/slow_rank_rule.cc
std::unique_ptr<Rule> MakeTailLatencyRule();            // rules/tail_latency_rule.cc
std::unique_ptr<Rule> MakeThreadOversubscriptionRule(); // rules/thread_oversubscription_rule.cc

}  // namespace cprof
