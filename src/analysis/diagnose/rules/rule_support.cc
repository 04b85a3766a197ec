// Helpers shared by the diagnose rules (rule_support.h).
#include "analysis/diagnose/rules/rule_support.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <unordered_set>

#include <fmt/format.h>

namespace cprof::rules {

Framework FrameworkOf(const DiagnosisContext& ctx) {
  switch (ctx.device_kind()) {
    case DeviceKind::kCpu: return Framework::kPytorchCpu;
    case DeviceKind::kGpu: return Framework::kPytorchCuda;
    case DeviceKind::kNpu: return Framework::kTorchNpu;
  }
  return Framework::kPytorchCpu;
}

std::string_view DeviceModule(Framework fw) {
  switch (fw) {
    case Framework::kPytorchCuda: return "torch.cuda";
    case Framework::kTorchNpu: return "torch.npu";
    case Framework::kPytorchCpu: return "";
  }
  return "";
}

std::string OpBase(std::string_view name) {
  if (size_t k = name.rfind("::"); k != std::string_view::npos) name = name.substr(k + 2);
  std::string out(name);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

std::string OpRoot(std::string_view name) {
  std::string b = OpBase(name);
  if (b.ends_with("_out")) b.resize(b.size() - 4);
  while (b.size() > 1 && b.back() == '_') b.pop_back();
  return b;
}

bool ContainsNoCase(std::string_view haystack, std::string_view needle) {
  if (needle.empty()) return true;
  auto it = std::search(haystack.begin(), haystack.end(), needle.begin(), needle.end(), [](char a, char b) {
    return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
  });
  return it != haystack.end();
}

int StepIndexAt(const std::vector<Step>& steps, int64_t ts) {
  auto it = std::upper_bound(steps.begin(), steps.end(), ts, [](int64_t t, const Step& s) { return t < s.start_ns; });
  if (it == steps.begin()) return -1;
  --it;
  return ts < it->end_ns() ? static_cast<int>(it - steps.begin()) : -1;
}

void SetCost(const DiagnosisContext& ctx, int64_t total_ns, Finding& f) {
  f.cost_total_ns = total_ns;
  const size_t n = ctx.steps().size();
  f.cost_per_step_ns = n > 0 ? total_ns / static_cast<int64_t>(n) : 0;
  f.saving_ns = std::clamp<int64_t>(f.saving_ns, 0, total_ns);
  f.device = std::string(DeviceKindId(ctx.device_kind()));
}

std::string FormatNs(int64_t ns) {
  const double a = std::abs(static_cast<double>(ns));
  if (a >= 1e9) return fmt::format("{:.3g} s", ns / 1e9);
  if (a >= 1e6) return fmt::format("{:.3g} ms", ns / 1e6);
  if (a >= 1e3) return fmt::format("{:.3g} us", ns / 1e3);
  return fmt::format("{} ns", ns);
}

std::string Percent(double ratio) { return fmt::format("{:.0f}%", 100 * ratio); }

int64_t OutermostDuration(const Trace& trace, const std::vector<uint32_t>& rows) {
  std::unordered_set<uint32_t> set(rows.begin(), rows.end());
  int64_t total = 0;
  for (uint32_t r : rows) {
    bool nested = false;
    for (SliceId p = trace.slices.parent_id[r]; p != kNoSlice && !nested; p = trace.slices.parent_id[Index(p)])
      nested = set.count(Index(p)) > 0;
    if (!nested) total += std::max<int64_t>(0, trace.slices.dur_ns[r]);
  }
  return total;
}

}  // namespace cprof::rules

namespace cprof::rules {

LaunchedDeviceTime::LaunchedDeviceTime(const DiagnosisContext& ctx) : trace_(ctx.trace()) {
  for (uint32_t r : ctx.device_rows()) {
    const int64_t c = trace_.slices.correlation_id[r];
    if (c != kNoCorrelation) by_correlation_[c] += std::max<int64_t>(0, trace_.slices.dur_ns[r]);
  }
}

int64_t LaunchedDeviceTime::Under(uint32_t row) const {
  if (by_correlation_.empty()) return 0;
  const SliceTable& s = trace_.slices;
  int64_t total = 0;
  const int64_t end = trace_.slice_end(row);
  // Descendants follow their ancestor on the same track (sorted by start, longer first).
  for (uint32_t d = row; d < s.size() && s.track_id[d] == s.track_id[row] && s.ts_ns[d] <= end; ++d) {
    if (d != row && s.depth[d] <= s.depth[row]) break;
    if (s.correlation_id[d] == kNoCorrelation) continue;
    auto it = by_correlation_.find(s.correlation_id[d]);
    if (it != by_correlation_.end()) total += it->second;
  }
  return total;
}

}  // namespace cprof::rules
