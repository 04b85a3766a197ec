// What the Ascend (NPU) rules share: whether a trace is an NPU trace, typed access to the args the
// torch_npu importer gives device tasks (kernel_details.csv columns, HCCL task fields), the
// tasks themselves, and small formatting helpers for titles.
//
//   if (!npu::IsNpuTrace(ctx.trace())) return;
//   npu::ArgReader args(ctx.trace());
//   for (uint32_t row : npu::DeviceTaskRows(ctx)) {
//     std::string_view type = args.Text(row, "Type");          // "TransData", "" when absent
//     std::optional<double> vec = args.Number(row, "aiv_vec_ratio");
//   }
//
// Only the generic vocabulary of torch_npu / CANN is used here (column names, task types), never
// workload names.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "analysis/diagnose/diagnosis_context.h"
#include "analysis/diagnose/finding.h"
#include "model/trace.h"

namespace cprof::npu {

// True when the trace has Ascend device tasks (tracks of kind kNpuStream).
bool IsNpuTrace(const Trace& trace);

// Looks up slice args by key name; key ids are resolved once per key.
class ArgReader {
 public:
  explicit ArgReader(const Trace& trace) : trace_(trace) {}
  // The arg as text ("" when absent or not a string).
  std::string_view Text(uint32_t row, std::string_view key) const;
  // The arg as a number (ints, doubles, bools; also numeric strings), nullopt when absent.
  std::optional<double> Number(uint32_t row, std::string_view key) const;
  bool Has(uint32_t row, std::string_view key) const;

 private:
  std::optional<Value> Find(uint32_t row, std::string_view key) const;
  const Trace& trace_;
  mutable std::vector<std::pair<std::string, std::optional<StringId>>> keys_;
};

// Rows of slices on NPU stream tracks that start inside the window, sorted by start.
std::vector<uint32_t> DeviceTaskRows(const DiagnosisContext& ctx);
// Rows of slices on communication tracks that start inside the window, sorted by start.
std::vector<uint32_t> CommunicationRows(const DiagnosisContext& ctx);

// The kernel type of a device task: kernel_details' "Type" column when the importer attached it,
// else the slice name.
std::string_view KernelType(const Trace& trace, const ArgReader& args, uint32_t row);

// Whether a device task is a kernel (computation, AI CPU included) rather than communication,
// a copy, an event or a notify. With a kernel table (`kernel_table`: some task has kernel_details'
// "Accelerator Core"), exactly the tasks it describes, HCCL excluded; without one, by the trace's
// "Task Type" (AI_CORE, AI_VECTOR_CORE, MIX_*, AI_CPU).
bool IsKernelTask(const ArgReader& args, uint32_t row, bool kernel_table);
// Whether any of `rows` carries kernel_details' "Accelerator Core".
bool HasKernelTable(const ArgReader& args, const std::vector<uint32_t>& rows);

// cost_total_ns = total; cost_per_step_ns = total / steps (0 without steps).
void SetCost(const DiagnosisContext& ctx, int64_t total_ns, Finding& f);
// Fills the fields every NPU finding shares (category, device, confidence from `terms`).
void SetConfidence(const ConfidenceTerms& terms, Finding& f);

// "12.3 ms", "850 us", "1.25 s".
std::string FormatNs(int64_t ns);
// "74.7%".
std::string Percent(double ratio);

// Index of the step a device task at `ts` belongs to: the last step that starts at or before it
// (device work runs after its host launch, often past the host step's end); -1 before the first.
int DeviceStepIndex(const std::vector<Step>& steps, int64_t ts);
// Share of `steps` holding at least one of `rows` by DeviceStepIndex; 1 when there are no steps.
double StepConsistency(const Trace& trace, const std::vector<Step>& steps, const std::vector<uint32_t>& rows);

// Host slices (thread tracks) inside the window whose name contains one of `needles`, outermost
// only (a match nested in another match is skipped).
std::vector<uint32_t> HostSlicesNamed(const DiagnosisContext& ctx, std::initializer_list<std::string_view> needles);

// Total device time the Overlap Analysis marks Free in the analysed steps; nullopt without it.
std::optional<int64_t> DeviceFreeNs(const DiagnosisContext& ctx);

// One HCCL op (a communication-track slice named "hcom*") and how long it waited for each peer:
// its Notify_Wait tasks (same device, starting inside the op) by peer rank ("dst rank", or
// "src rank" when dst is this rank). A peer that signals late shows as one long wait.
struct CommOpWait {
  uint32_t op_row = 0;
  int64_t late_peer = -1;        // the peer waited for longest, -1 when the op has no waits
  int64_t max_wait_ns = 0;       // that wait
  int64_t median_wait_ns = 0;    // the median over peers of each peer's longest wait
  uint32_t wait_row = 0;         // the Notify_Wait task of max_wait_ns
  int64_t excess_ns() const { return max_wait_ns - median_wait_ns; }
};
bool IsHcclOpName(std::string_view name);
std::vector<CommOpWait> CommOpWaits(const DiagnosisContext& ctx, const ArgReader& args);

// Sum of the durations of `rows`' slices that start inside [start, end).
int64_t SumInside(const Trace& trace, const std::vector<uint32_t>& rows, int64_t start, int64_t end);

}  // namespace cprof::npu
