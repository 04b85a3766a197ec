// A finding: one root cause the diagnosis found, with the evidence behind it, what it costs,
// what fixing it would save, how sure we are, and what to do.
//
//   Finding f;
//   f.category = Category::kLaunchOverhead;
//   f.title = "4,210 kernels under 10 us: launch overhead dominates";
//   f.metrics.push_back({"short_kernel_fraction", 0.81, "ratio"});
//   f.events.push_back(ctx.EventRef(row, "the longest launch gap"));
//   f.confidence = ComputeConfidence(terms);   // confidence.h
//
// Rules fill every field they can; `saving_method` says in a sentence how `saving_ns` was
// estimated (what would be removed or overlapped, and what is assumed), so a reader can check it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/diagnose/category.h"
#include "analysis/diagnose/confidence.h"

namespace cprof {

// One metric value backing a finding ("exposed_comm_fraction" = 0.747, unit "ratio").
// Units: "ns", "bytes", "count", "ratio" (0..1), "percent", "per_s", or "" for plain numbers.
struct FindingMetric {
  std::string name;
  double value = 0;
  std::string unit;
};

// One event a finding cites. Referenced by track path (Trace::TrackPath), start time and name,
// which survive re-import (row ids do not); `slice_row` is a convenience for this very trace.
struct EvidenceEvent {
  std::string name;
  std::string track_path;
  int64_t ts_ns = 0;   // absolute, on the trace's clock
  int64_t dur_ns = 0;
  std::optional<uint32_t> slice_row;
  std::string note;    // why this event is cited, one short phrase
};

// A concrete action. `kind` says how to apply it: "code" (a snippet to change), "env" (an
// environment variable), "config" (a framework/tool setting), "command" (something to run).
struct Suggestion {
  std::string text;     // what to do and why, one or two sentences
  std::string kind;     // "code" | "env" | "config" | "command" | "" (advice only)
  std::string snippet;  // the code / VAR=value / command, if any
};

struct Finding {
  Category category = Category::kLaunchOverhead;
  std::string rule;      // the rule that produced it (Rule::name())
  std::string title;     // one line, with the key number in it
  std::string summary;   // a few sentences: what happens, why it is slow
  std::string device;    // "cpu", "gpu", "npu": the kind of trace the finding is about

  double confidence = 0;               // [0, 1], by ComputeConfidence
  ConfidenceTerms confidence_terms;    // the inputs, reported so the number can be checked

  int64_t cost_per_step_ns = 0;  // time this cause costs per step (0 when there are no steps)
  int64_t cost_total_ns = 0;     // over the analysed window
  int64_t saving_ns = 0;         // estimated total saving if fixed (<= cost_total_ns)
  std::string saving_method;     // how saving_ns was estimated, one sentence

  std::vector<FindingMetric> metrics;
  std::vector<EvidenceEvent> events;  // the top events, most telling first (at most ~10)
  std::vector<Suggestion> suggestions;

  // Ranking key: expected saving x confidence.
  double score() const { return static_cast<double>(saving_ns) * confidence; }
};

}  // namespace cprof
