// Guidance from a diagnosis: the seam through which `tune --from_diagnosis` turns the diagnose
// command's findings into a search space and a starting point (layout conversion -> memory
// format; oversubscription -> thread counts; memory churn/fragmentation and env_config ->
// allocator settings; launch overhead and fusion candidates -> compile switches; dataloader and
// host gaps -> loader workers; affinity_api -> the optimizer implementation) and writes the choice
// as runtime_adjustment.yaml.
//
//   ReportedRun run = ...;  // the CLI fills it from the report (report/diagnose/diagnosis_reader.h)
//   ASSIGN_OR_RETURN(DiagnosisGuidance g, GuidanceFor(run, "root_cause_report.yaml"));
//   for (const Parameter& p : g.space.params) use(p.name, g.why[p.name]);
//
// The report itself is read by the one diagnosis reader; this module sees only what it needs:
// each finding's category, confidence, title and evidence metrics, and the run's device and
// PyTorch version. Findings below kMinGuidanceConfidence are ignored (a weak finding should not
// steer a study); a knob suggested by several findings appears once, its `why` naming the most
// confident one. Each knob's default is today's behaviour, so the first trial is the baseline:
// num_threads defaults to the intra-op pool the traced run used (the finding's
// torch_intra_op_threads), among powers of two up to its cpu_cores. Memory findings of a CPU run
// suggest no knob: glibc's settings are recommend-runtime's, and PYTORCH_CUDA_ALLOC_CONF does
// nothing there. Launch-overhead findings of a run whose PyTorch predates 2.0 suggest no
// compile_mode (torch.compile does not exist there); `notes` says so. kUnavailable when no finding
// maps to a tunable knob (then give --space).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "tune/search_space.h"

namespace cprof::tune {

inline constexpr double kMinGuidanceConfidence = 0.3;

struct GuidanceFinding {
  std::string category;
  double confidence = 0;
  std::string title;
};

struct DiagnosisGuidance {
  SpaceDefinition space;                    // parameters suggested by the findings
  std::map<std::string, Value> start;       // the configuration to evaluate first
  std::map<std::string, std::string> why;   // parameter -> the finding that suggested it
  std::vector<GuidanceFinding> findings;    // confidence >= kMinGuidanceConfidence, report order
  // finding category -> {knob -> the value that addresses it} for `space`, in the form of a space
  // file's `fixes:` (GuidedStartsFor): tune without --space starts from these right after `start`.
  std::map<std::string, std::map<std::string, Value>> fixes;
  std::vector<std::string> notes;           // knobs left out and why (compile_mode before PyTorch 2)
};

// The guided starts in a space: one per finding (in report order) whose category the space's
// `fixes:` name, in which those parameters take the value given there and every other parameter
// keeps its default; `why` gets "category: title" per parameter set. One configuration per
// finding, so that a fix that fails (torch.compile on PyTorch 1.13) does not take the others with
// it. Findings whose fixes give the same configuration are tried once. Empty when no finding
// names a parameter of the space.
struct GuidedStart {
  std::map<std::string, Value> values;
  std::map<std::string, std::string> why;
};
std::vector<GuidedStart> GuidedStartsFor(const SearchSpace& space,
                                         const std::map<std::string, std::map<std::string, Value>>& fixes,
                                         const DiagnosisGuidance& guidance);

// What the guidance reads of a diagnosis report.
struct ReportedFinding {
  std::string category;                   // the stable id: layout_conversion, ...
  double confidence = 0;
  std::string title;                      // empty: the category stands for it
  std::map<std::string, double> metrics;  // the evidence's metrics by name
};
struct ReportedRun {
  std::string device;         // the traced run's: cpu, gpu, npu
  std::string torch_version;  // the traced run's PyTorch; empty when unknown
  std::vector<ReportedFinding> findings;  // report order (ranked)
};

// `source` names the report in messages. `require_knobs`: kUnavailable when no finding maps to a
// generic knob (pass false when the user gives their own space, whose `fixes:` may still name the
// findings' categories).
StatusOr<DiagnosisGuidance> GuidanceFor(const ReportedRun& run, const std::string& source, bool require_knobs = true);

}  // namespace cprof::tune
