// The operator-level difference between two traces (or two windows of one): what ran more or
// less often, what got slower or faster, what is new and what vanished, how the time split by
// category moved, and whether each change stands out from step-to-step noise.
//
//   TraceDiffOptions opt;                       // alpha 0.05, top 10
//   TraceDiff d = DiffTraces(baseline, target, opt);
//   for (size_t i : d.top_regressions) show(d.ops[i]);   // with its evidence
//
// Alignment: ops are keyed by (name, shapes, host/device); names first go through the op map
// when one is given. Within a key, instances are also aligned by sequence (k-th with k-th) when
// both sides ran it equally often, and the pair that changed most is kept as evidence.
// Significance: per op, a Mann-Whitney test on its per-step total time (every step counts, 0
// where it did not run) when both sides have at least `min_samples` steps, else on single
// instance durations when both have that many instances; Benjamini-Hochberg across all tested
// ops (a false discovery rate, not a family-wise one: with thousands of ops and a few steps,
// Holm would call nothing; a screening question wants "most of what is flagged is real").
// Ranking: by the change of self time (self times add up without double counting), normalized
// per step when the step counts differ.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "analysis/compare/op_map.h"
#include "analysis/gpu_timeline.h"
#include "analysis/step_detector.h"
#include "analysis/time_window.h"
#include "model/trace.h"
#include "stats/sample_comparison.h"

namespace cprof {

struct TraceDiffOptions {
  TimeWindow baseline_window;
  TimeWindow target_window;
  const OpMap* op_map = nullptr;  // not owned; may be null
  double alpha = 0.05;
  size_t top_n = 10;
  int64_t min_samples = 5;        // per side, for an op's significance test
  uint64_t seed = 0x5eed2024ULL;  // bootstrap of the step-time comparison
};

// One side of one op.
struct OpSideStats {
  int64_t count = 0;
  int64_t total_ns = 0;
  int64_t self_ns = 0;
  double mean_ns = 0;
  double p50_ns = 0;
  int64_t max_ns = 0;
  int64_t max_ts_ns = 0;          // evidence: where the slowest instance ran (trace time)
  uint32_t max_row = 0;
};

enum class OpPresence { kBoth, kNew, kVanished };
std::string_view OpPresenceName(OpPresence p);  // "both", "new", "vanished"

struct OpDiff {
  std::string name;               // after the op map
  std::string shapes;
  bool device = false;
  std::string category;
  std::vector<std::string> baseline_names;  // source names merged into this row (op map)
  std::vector<std::string> target_names;
  OpSideStats baseline;
  OpSideStats target;
  OpPresence presence = OpPresence::kBoth;
  int64_t delta_count = 0;
  int64_t delta_total_ns = 0;
  int64_t delta_self_ns = 0;
  double delta_self_norm_ns = 0;  // ranking key: self delta, target scaled to the baseline's step count
  double delta_total_pct = 0;     // NaN when new or vanished
  // Significance (tested == false when too few samples).
  bool tested = false;
  std::string test_unit;          // "per-step total" or "per-instance"
  int64_t n_baseline = 0;
  int64_t n_target = 0;
  double p_value = 1;
  double p_adjusted = 1;          // Benjamini-Hochberg across tested ops
  double hodges_lehmann_ns = 0;   // target - baseline, in the test unit
  double cliffs_delta = 0;
  bool significant = false;
  // Sequence alignment evidence (counts equal on both sides).
  bool sequence_aligned = false;
  int64_t seq_index = -1;         // k: the k-th instance on each side
  int64_t seq_baseline_ts_ns = 0;
  int64_t seq_target_ts_ns = 0;
  int64_t seq_baseline_dur_ns = 0;
  int64_t seq_target_dur_ns = 0;
};

struct CategoryDiff {
  std::string category;           // slice category, self time (adds up across categories)
  int64_t baseline_ns = 0;
  int64_t target_ns = 0;
};

struct TraceSideSummary {
  std::string source_format;
  int64_t span_ns = 0;            // window or trace span
  int64_t op_instances = 0;
  std::vector<Step> steps;
  std::optional<GpuTimeline> gpu;
};

struct TraceDiff {
  TraceSideSummary baseline;
  TraceSideSummary target;
  std::optional<SampleComparison> step_time;  // per-step durations (ms), when both have >= 2 steps
  std::vector<OpDiff> ops;                    // by |delta_self_norm_ns|, descending
  std::vector<size_t> top_regressions;        // indices into ops: slower / more time
  std::vector<size_t> top_improvements;
  std::vector<CategoryDiff> categories;       // by baseline + target time, descending
  int64_t new_ops = 0;
  int64_t vanished_ops = 0;
  int64_t significant_ops = 0;
  std::vector<std::string> notes;
};

TraceDiff DiffTraces(const Trace& baseline, const Trace& target, const TraceDiffOptions& options);

}  // namespace cprof
