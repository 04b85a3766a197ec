// Shared helpers of the Ascend (NPU) rules (npu_rule_support.h).
#include "analysis/diagnose/rules/npu_rule_support.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "analysis/overlap_analysis.h"

namespace cprof::npu {

bool IsNpuTrace(const Trace& trace) {
  for (size_t t = 0; t < trace.tracks.size(); ++t)
    if (trace.tracks.kind[t] == TrackKind::kNpuStream) return true;
  return false;
}

std::optional<Value> ArgReader::Find(uint32_t row, std::string_view key) const {
  const ArgSetId set = trace_.slices.arg_set_id[row];
  if (set == kNoArgs) return std::nullopt;
  for (const auto& [name, id] : keys_) {
    if (name != key) continue;
    if (!id) return std::nullopt;
    return trace_.args.Find(set, *id);
  }
  keys_.emplace_back(std::string(key), trace_.strings.Find(key));
  if (!keys_.back().second) return std::nullopt;
  return trace_.args.Find(set, *keys_.back().second);
}

std::string_view ArgReader::Text(uint32_t row, std::string_view key) const {
  std::optional<Value> v = Find(row, key);
  if (!v || v->type != Value::Type::kString) return {};
  return trace_.Str(v->s);
}

std::optional<double> ArgReader::Number(uint32_t row, std::string_view key) const {
  std::optional<Value> v = Find(row, key);
  if (!v) return std::nullopt;
  double d = 0;
  if (v->AsDouble(&d)) return d;
  if (v->type == Value::Type::kString) {
    std::string_view s = trace_.Str(v->s);
    while (!s.empty() && (s.back() == '\t' || s.back() == ' ')) s.remove_suffix(1);
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), d);
    if (ec == std::errc() && p == s.data() + s.size()) return d;
  }
  return std::nullopt;
}

bool ArgReader::Has(uint32_t row, std::string_view key) const { return Find(row, key).has_value(); }

namespace {
std::vector<uint32_t> RowsOfKind(const DiagnosisContext& ctx, TrackKind kind) {
  const Trace& t = ctx.trace();
  std::vector<uint32_t> rows;
  for (uint32_t track = 0; track < t.tracks.size(); ++track) {
    if (t.tracks.kind[track] != kind) continue;
    auto [b, e] = t.track_slices(TrackId{track});
    for (uint32_t r = b; r < e; ++r)
      if (ctx.InWindow(r) && t.slices.dur_ns[r] >= 0) rows.push_back(r);
  }
  std::sort(rows.begin(), rows.end(),
            [&](uint32_t a, uint32_t b) { return t.slices.ts_ns[a] < t.slices.ts_ns[b]; });
  return rows;
}
}  // namespace

std::vector<uint32_t> DeviceTaskRows(const DiagnosisContext& ctx) { return RowsOfKind(ctx, TrackKind::kNpuStream); }
std::vector<uint32_t> CommunicationRows(const DiagnosisContext& ctx) {
  return RowsOfKind(ctx, TrackKind::kCommunication);
}

std::string_view KernelType(const Trace& trace, const ArgReader& args, uint32_t row) {
  std::string_view type = args.Text(row, "Type");
  return type.empty() ? trace.Str(trace.slices.name_id[row]) : type;
}

bool HasKernelTable(const ArgReader& args, const std::vector<uint32_t>& rows) {
  for (uint32_t r : rows)
    if (args.Has(r, "Accelerator Core")) return true;
  return false;
}

bool IsKernelTask(const ArgReader& args, uint32_t row, bool kernel_table) {
  const std::string_view core = args.Text(row, "Accelerator Core");
  if (!core.empty()) return core != "HCCL";
  if (kernel_table) return false;
  const std::string_view type = args.Text(row, "Task Type");
  return type == "AI_CORE" || type == "AI_VECTOR_CORE" || type == "AI_CPU" || type.substr(0, 4) == "MIX_";
}

void SetCost(const DiagnosisContext& ctx, int64_t total_ns, Finding& f) {
  f.cost_total_ns = total_ns;
  const size_t steps = ctx.steps().size();
  f.cost_per_step_ns = steps == 0 ? 0 : total_ns / static_cast<int64_t>(steps);
}

void SetConfidence(const ConfidenceTerms& terms, Finding& f) {
  f.confidence_terms = terms;
  f.confidence = ComputeConfidence(terms);
  f.device = "npu";
}

std::string FormatNs(int64_t ns) {
  const double a = std::abs(static_cast<double>(ns));
  if (a >= 1e9) return fmt::format("{:.2f} s", ns / 1e9);
  if (a >= 1e6) return fmt::format("{:.1f} ms", ns / 1e6);
  if (a >= 1e3) return fmt::format("{:.0f} us", ns / 1e3);
  return fmt::format("{} ns", ns);
}

std::string Percent(double ratio) { return fmt::format("{:.1f}%", ratio * 100.0); }

int64_t SumInside(const Trace& trace, const std::vector<uint32_t>& rows, int64_t start, int64_t end) {
  int64_t sum = 0;
  for (uint32_t r : rows)
    if (trace.slices.ts_ns[r] >= start && trace.slices.ts_ns[r] < end) sum += trace.slices.dur_ns[r];
  return sum;
}

int DeviceStepIndex(const std::vector<Step>& steps, int64_t ts) {
  int idx = -1;
  for (size_t i = 0; i < steps.size(); ++i)
    if (steps[i].start_ns <= ts) idx = static_cast<int>(i);
  return idx;
}

double StepConsistency(const Trace& trace, const std::vector<Step>& steps, const std::vector<uint32_t>& rows) {
  if (steps.empty()) return 1.0;
  std::vector<char> hit(steps.size(), 0);
  for (uint32_t r : rows) {
    const int i = DeviceStepIndex(steps, trace.slices.ts_ns[r]);
    if (i >= 0) hit[static_cast<size_t>(i)] = 1;
  }
  int64_t n = 0;
  for (char h : hit) n += h;
  return static_cast<double>(n) / static_cast<double>(steps.size());
}

std::vector<uint32_t> HostSlicesNamed(const DiagnosisContext& ctx, std::initializer_list<std::string_view> needles) {
  const Trace& t = ctx.trace();
  // Which names match, decided once per distinct name.
  std::vector<signed char> match(t.strings.size(), -1);
  auto matches = [&](StringId id) {
    signed char& m = match[Index(id)];
    if (m < 0) {
      m = 0;
      const std::string_view name = t.Str(id);
      for (std::string_view n : needles)
        if (name.find(n) != std::string_view::npos) m = 1;
    }
    return m == 1;
  };
  std::vector<uint32_t> rows;
  for (uint32_t track = 0; track < t.tracks.size(); ++track) {
    if (t.tracks.kind[track] != TrackKind::kThread) continue;
    auto [b, e] = t.track_slices(TrackId{track});
    for (uint32_t r = b; r < e; ++r) {
      if (!ctx.InWindow(r) || t.slices.dur_ns[r] < 0 || !matches(t.slices.name_id[r])) continue;
      bool nested = false;
      for (SliceId p = t.slices.parent_id[r]; p != kNoSlice; p = t.slices.parent_id[Index(p)])
        if (matches(t.slices.name_id[Index(p)])) { nested = true; break; }
      if (!nested) rows.push_back(r);
    }
  }
  return rows;
}

bool IsHcclOpName(std::string_view name) {
  return name.size() >= 4 && (name.substr(0, 4) == "hcom" || name.substr(0, 4) == "HCOM");
}

std::vector<CommOpWait> CommOpWaits(const DiagnosisContext& ctx, const ArgReader& args) {
  const Trace& t = ctx.trace();
  std::vector<uint32_t> ops, waits;
  for (uint32_t r : CommunicationRows(ctx)) {
    const std::string_view name = t.Str(t.slices.name_id[r]);
    if (IsHcclOpName(name)) ops.push_back(r);
    else if (name == "Notify_Wait" || args.Text(r, "task type") == "Notify_Wait") waits.push_back(r);
  }
  auto device_of = [&](uint32_t r) { return t.tracks.device[Index(t.slices.track_id[r])]; };
  std::vector<CommOpWait> out;
  size_t w = 0;  // both lists are sorted by start
  for (uint32_t op : ops) {
    CommOpWait ow;
    ow.op_row = op;
    const int64_t start = t.slices.ts_ns[op], end = t.slice_end(op);
    while (w < waits.size() && t.slices.ts_ns[waits[w]] < start) ++w;
    std::map<int64_t, std::pair<int64_t, uint32_t>> by_peer;  // peer -> (longest wait, row)
    for (size_t k = w; k < waits.size() && t.slices.ts_ns[waits[k]] <= end; ++k) {
      const uint32_t r = waits[k];
      if (device_of(r) != device_of(op)) continue;
      const int64_t src = static_cast<int64_t>(args.Number(r, "src rank").value_or(-1));
      int64_t peer = static_cast<int64_t>(args.Number(r, "dst rank").value_or(-1));
      const int64_t self = t.tracks.rank[Index(t.slices.track_id[r])];
      if (peer < 0 || peer == self || peer >= (int64_t{1} << 31)) peer = src;
      auto& best = by_peer[peer];
      if (t.slices.dur_ns[r] >= best.first) best = {t.slices.dur_ns[r], r};
    }
    if (!by_peer.empty()) {
      std::vector<int64_t> longest;
      for (const auto& [peer, wr] : by_peer) {
        longest.push_back(wr.first);
        if (wr.first > ow.max_wait_ns || ow.late_peer < 0) {
          ow.max_wait_ns = wr.first;
          ow.late_peer = peer;
          ow.wait_row = wr.second;
        }
      }
      std::sort(longest.begin(), longest.end());
      ow.median_wait_ns = longest[(longest.size() - 1) / 2];
    }
    out.push_back(ow);
  }
  return out;
}

std::optional<int64_t> DeviceFreeNs(const DiagnosisContext& ctx) {
  if (!HasOverlapAnalysis(ctx.trace())) return std::nullopt;
  int64_t free = 0;
  for (const StepTraceTime& s : ComputeStepTraceTime(ctx.trace(), ctx.steps())) free += s.free_ns;
  return free;
}

}  // namespace cprof::npu
