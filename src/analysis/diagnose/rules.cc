// The rule registry (rules.h).
#include "analysis/diagnose/rules.h"

namespace cprof {

const std::vector<std::unique_ptr<Rule>>& AllRules() {
  static const std::vector<std::unique_ptr<Rule>>* const rules = [] {
    auto* v = new std::vector<std::unique_ptr<Rule>>();
    // One line per rule, alphabetical.
    v->push_back(MakeAffinityApiRule());
    v->push_back(MakeAicpuOpsRule());
    v->push_back(MakeCommAlignmentRule());
    v->push_back(MakeDataloaderRule());
    v->push_back(MakeDeviceIdleRule());
    v->push_back(MakeDynamicShapeRule());
    v->push_back(MakeEnvConfigCpuRule());
    v->push_back(MakeExposedCommunicationRule());
    v->push_back(MakeFusionCandidateRule());
    v->push_back(MakeGcRule());
    v->push_back(MakeHostDeviceSyncRule());
    v->push_back(MakeHostGapRule());
    v->push_back(MakeLaunchOverheadRule());
    v->push_back(MakeLayoutConversionRule());
    v->push_back(MakeMemoryChurnRule());
    v->push_back(MakeMemoryFragmentationRule());
    v->push_back(MakeNpuAffinityApiRule());
    v->push_back(MakeNpuEnvConfigRule());
    v->push_back(MakeNpuExposedCommunicationRule());
    v->push_back(MakeNpuLayoutConversionRule());
    v->push_back(MakePageFaultChurnRule());
    v->push_back(MakeReferenceBlasRule());
    v->push_back(MakeSlowRankRule());
    v->push_back(MakeTailLatencyRule());
    v->push_back(MakeThreadOversubscriptionRule());
    return v;
  }();
  return *rules;
}

}  // namespace cprof
