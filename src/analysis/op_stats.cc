// Operator statistics by name (host ops and device kernels).
#include "analysis/op_stats.h"

#include <algorithm>
#include <unordered_map>

#include "analysis/device_work.h"
#include "stats/summary_stats.h"

namespace cprof {
namespace {

struct Accumulator {
  std::vector<int64_t> durations;
  int64_t self = 0;
};

std::vector<OpStat> Finish(const Trace& t, std::unordered_map<uint32_t, Accumulator>& acc) {
  std::vector<OpStat> out;
  out.reserve(acc.size());
  for (auto& [name, a] : acc) {
    SummaryStats s = Summarize(std::move(a.durations));
    OpStat op;
    op.name = std::string(t.Str(StringId{name}));
    op.count = s.count;
    op.total_ns = s.sum;
    op.self_ns = a.self;
    op.mean_ns = s.mean;
    op.p50_ns = s.p50;
    op.p99_ns = s.p99;
    op.min_ns = s.min;
    op.max_ns = s.max;
    out.push_back(std::move(op));
  }
  std::sort(out.begin(), out.end(), [](const OpStat& a, const OpStat& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  return out;
}

}  // namespace

OpStatsTable ComputeOpStats(const Trace& t, const TimeWindow& window) {
  const size_t n = t.slices.size();
  // Self time: each slice's duration minus its direct children's.
  std::vector<int64_t> self(n);
  for (size_t r = 0; r < n; ++r) self[r] = std::max<int64_t>(0, t.slices.dur_ns[r]);
  for (size_t r = 0; r < n; ++r) {
    SliceId p = t.slices.parent_id[r];
    if (p != kNoSlice) self[Index(p)] -= std::max<int64_t>(0, t.slices.dur_ns[r]);
  }

  std::optional<StringId> cpu_op = t.strings.Find("cpu_op");
  bool has_cpu_op = false;
  if (cpu_op) {
    for (uint32_t track = 0; track < t.tracks.size() && !has_cpu_op; ++track) {
      if (t.tracks.kind[track] != TrackKind::kThread) continue;
      auto [b, e] = t.track_slices(TrackId{track});
      for (uint32_t r = b; r < e; ++r) {
        if (t.slices.category_id[r] == *cpu_op) {
          has_cpu_op = true;
          break;
        }
      }
    }
  }
  std::vector<int8_t> is_step(t.strings.size(), -1);
  auto step_name = [&](StringId id) {
    int8_t& v = is_step[Index(id)];
    if (v < 0) v = t.Str(id).starts_with("ProfilerStep#") ? 1 : 0;
    return v == 1;
  };

  DeviceWorkClassifier classify(t);
  std::unordered_map<uint32_t, Accumulator> cpu, device;
  for (uint32_t track = 0; track < t.tracks.size(); ++track) {
    TrackKind kind = t.tracks.kind[track];
    bool host = kind == TrackKind::kThread;
    if (!host && !IsDeviceTrack(kind)) continue;
    auto [b, e] = t.track_slices(TrackId{track});
    for (uint32_t r = b; r < e; ++r) {
      int64_t dur = t.slices.dur_ns[r];
      if (dur < 0 || !window.Contains(t.slices.ts_ns[r])) continue;
      Accumulator* a = nullptr;
      if (host) {
        if (has_cpu_op && t.slices.category_id[r] != *cpu_op) continue;
        if (step_name(t.slices.name_id[r])) continue;
        a = &cpu[Index(t.slices.name_id[r])];
      } else {
        if (classify(r) == DeviceWork::kNone) continue;
        a = &device[Index(t.slices.name_id[r])];
      }
      a->durations.push_back(dur);
      a->self += std::max<int64_t>(0, self[r]);
    }
  }
  return {Finish(t, cpu), Finish(t, device)};
}

std::vector<OpStat> TopOps(const std::vector<OpStat>& ops, OpSortKey key, size_t n) {
  std::vector<OpStat> out = ops;
  auto value = [key](const OpStat& o) { return key == OpSortKey::kSelf ? o.self_ns : o.total_ns; };
  std::sort(out.begin(), out.end(), [&](const OpStat& a, const OpStat& b) {
    return value(a) != value(b) ? value(a) > value(b) : a.name < b.name;
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace cprof
