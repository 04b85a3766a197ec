// What cluster analysis keeps of one rank once its trace is dropped: the per-step time
// breakdown, the communication ops with their wait/synchronization times, and the links of the
// communication matrix. A few KB per rank, so a cluster of hundreds of ranks is held at once while
// each trace is imported, summarized and freed (memory bounded by the largest rank).
//
//   RankSummary s = SummarizeRank(trace, /*prefer_trace_steps=*/true);
//   for (const RankStep& st : s.steps) use(st.computing_ns, st.comm_not_overlapped_ns);
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/trace.h"

namespace cprof {

// One step of torch_npu's step_trace_time breakdown, in ns.
struct RankStep {
  std::string step;  // "50", or "all" when the trace has no steps
  int64_t computing_ns = 0;
  int64_t comm_not_overlapped_ns = 0;  // exposed communication
  int64_t overlapped_ns = 0;
  int64_t communication_ns = 0;
  int64_t free_ns = 0;  // idle
  int64_t stage_ns = 0;
  int64_t bubble_ns = 0;
  int64_t preparing_ns = 0;
};

// One communication op as this rank saw it (communication.json / analysis.db, or the trace).
struct RankCommOp {
  std::string step, kind, group, name;
  int64_t start_ns = 0;
  int64_t elapse_ns = 0, transit_ns = 0, wait_ns = 0, sync_ns = 0, idle_ns = 0;
  bool has_wait = false;  // false: only start and duration are known (trace without the analysis)
};

// One link of the communication matrix.
struct RankLink {
  std::string step, op, group, transport, op_name;
  int64_t src_rank = -1, dst_rank = -1;
  double size_mb = 0, time_ms = 0, bandwidth_gbps = 0;
};

struct RankSummary {
  std::string path;
  int64_t rank = -1;
  std::string source_format;
  std::string step_source;  // where the breakdown came from
  std::vector<RankStep> steps;
  std::vector<RankCommOp> ops;
  std::vector<RankLink> links;
  std::vector<std::string> notes;  // missing files, import problems, failed cross-checks
  int64_t import_errors = 0;       // import stats of error severity
};

// Summarizes a finished trace. With `prefer_trace_steps`, the breakdown is recomputed from the
// trace's Overlap Analysis slices when it has them; otherwise the imported step_trace_time table
// is used first.
RankSummary SummarizeRank(const Trace& trace, bool prefer_trace_steps);

}  // namespace cprof
