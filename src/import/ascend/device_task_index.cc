// Name + nearest-start lookup of device tasks.
#include "import/ascend/device_task_index.h"

#include <algorithm>

namespace cprof {

DeviceTaskIndex::DeviceTaskIndex(const Trace& trace) {
  const SliceTable& s = trace.slices;
  for (uint32_t i = 0; i < s.size(); ++i) {
    TrackId t = s.track_id[i];
    if (t == kNoTrack || !IsDeviceTrack(trace.tracks.kind[Index(t)])) continue;
    by_name_[Index(s.name_id[i])].push_back({s.ts_ns[i], i, false});
    ++size_;
  }
  for (auto& [name, v] : by_name_) {
    std::sort(v.begin(), v.end(), [](const Entry& a, const Entry& b) { return a.ts < b.ts; });
  }
}

void DeviceTaskIndex::Add(StringId name, int64_t ts_ns, SliceId slice) {
  if (slice == kNoSlice) return;
  auto& v = by_name_[Index(name)];
  Entry e{ts_ns, Index(slice), false};
  v.insert(std::upper_bound(v.begin(), v.end(), e, [](const Entry& a, const Entry& b) { return a.ts < b.ts; }), e);
  ++size_;
}

SliceId DeviceTaskIndex::Claim(std::optional<StringId> name, int64_t ts_ns, int64_t tolerance_ns) {
  if (!name) return kNoSlice;
  auto it = by_name_.find(Index(*name));
  if (it == by_name_.end()) return kNoSlice;
  auto& v = it->second;
  auto pos = std::lower_bound(v.begin(), v.end(), ts_ns - tolerance_ns,
                              [](const Entry& e, int64_t t) { return e.ts < t; });
  Entry* best = nullptr;
  for (; pos != v.end() && pos->ts <= ts_ns + tolerance_ns; ++pos) {
    if (pos->claimed) continue;
    if (!best || std::llabs(pos->ts - ts_ns) < std::llabs(best->ts - ts_ns)) best = &*pos;
  }
  if (!best) return kNoSlice;
  best->claimed = true;
  return SliceId{best->row};
}

}  // namespace cprof
