// The diagnosis: run every rule over a trace and rank what they found.
//
//   DiagnoseOptions opt;
//   opt.problem = Problem::kHighP99Latency;
//   Diagnosis d = Diagnose(trace, opt);
//   for (const Finding& f : d.findings) print(f.title, f.confidence, f.saving_ns);
//
// Findings are ranked by expected saving x confidence (Finding::score), ties by category id.
// The report writers (report/diagnose/) turn a Diagnosis into YAML, JSON or Markdown.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/finding.h"

namespace cprof {

struct Diagnosis {
  std::vector<Finding> findings;  // ranked, best first
  uint64_t content_hash = 0;
  DeviceKind device = DeviceKind::kCpu;
  Problem problem = Problem::kNone;
  int64_t span_ns = 0;
  int64_t step_count = 0;
  int64_t step_mean_ns = 0;
  std::vector<std::string> notes;  // what could not be analysed and why
  std::string torch_version;       // the traced run's PyTorch (collector metadata); empty if unknown
  // Set by the caller (the CLI) for the report; Diagnose() fills threshold_text from the options.
  std::string trace_path;
  std::string source_format;
  std::string threshold_text;
  int64_t rules_run = 0;
};

Diagnosis Diagnose(const Trace& trace, const DiagnoseOptions& options);

}  // namespace cprof
