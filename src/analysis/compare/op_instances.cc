// Operator instances with self time, shapes and step.
#include "analysis/compare/op_instances.h"

#include <algorithm>
#include <map>
#include <optional>
#include <tuple>
#include <unordered_map>

#include "analysis/device_work.h"

namespace cprof {
namespace {

std::string NormalizeShapes(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s)
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') out.push_back(c);
  return out;
}

// The step whose [start, end) holds ts, by binary search over steps sorted by start.
int32_t StepOf(const std::vector<Step>& steps, int64_t ts) {
  auto it = std::upper_bound(steps.begin(), steps.end(), ts, [](int64_t t, const Step& s) { return t < s.start_ns; });
  if (it == steps.begin()) return -1;
  --it;
  return ts < it->end_ns() ? static_cast<int32_t>(it - steps.begin()) : -1;
}

}  // namespace

OpInstances CollectOpInstances(const Trace& t, const TimeWindow& window, const std::vector<Step>& steps) {
  OpInstances out;
  const size_t n = t.slices.size();
  std::vector<int64_t> self(n);
  for (size_t r = 0; r < n; ++r) self[r] = std::max<int64_t>(0, t.slices.dur_ns[r]);
  for (size_t r = 0; r < n; ++r) {
    const SliceId p = t.slices.parent_id[r];
    if (p != kNoSlice) self[Index(p)] -= std::max<int64_t>(0, t.slices.dur_ns[r]);
  }

  const std::optional<StringId> cpu_op = t.strings.Find("cpu_op");
  bool has_cpu_op = false;
  if (cpu_op) {
    for (size_t r = 0; r < n && !has_cpu_op; ++r)
      has_cpu_op = t.slices.category_id[r] == *cpu_op &&
                   t.tracks.kind[Index(t.slices.track_id[r])] == TrackKind::kThread;
  }
  std::vector<std::optional<StringId>> shape_keys;
  for (const char* k : {"Input Dims", "Input dims", "Input Shapes", "Input shapes"})
    if (auto id = t.strings.Find(k)) shape_keys.push_back(id);

  std::map<std::tuple<uint32_t, std::string, bool>, uint32_t> key_index;
  std::vector<int8_t> is_step(t.strings.size(), -1);
  DeviceWorkClassifier classify(t);

  for (uint32_t track = 0; track < t.tracks.size(); ++track) {
    const TrackKind kind = t.tracks.kind[track];
    const bool host = kind == TrackKind::kThread;
    if (!host && !IsDeviceTrack(kind)) continue;
    auto [b, e] = t.track_slices(TrackId{track});
    for (uint32_t r = b; r < e; ++r) {
      const int64_t dur = t.slices.dur_ns[r];
      if (dur < 0 || !window.Contains(t.slices.ts_ns[r])) continue;
      const StringId name = t.slices.name_id[r];
      if (host) {
        if (has_cpu_op && t.slices.category_id[r] != *cpu_op) continue;
        int8_t& st = is_step[Index(name)];
        if (st < 0) st = t.Str(name).starts_with("ProfilerStep#") ? 1 : 0;
        if (st == 1) continue;
      } else if (classify(r) == DeviceWork::kNone) {
        continue;
      }
      std::string shapes;
      const ArgSetId args = t.slices.arg_set_id[r];
      if (host && args != kNoArgs) {
        for (const auto& k : shape_keys) {
          std::optional<Value> v = t.args.Find(args, *k);
          if (v && v->type == Value::Type::kString) {
            shapes = NormalizeShapes(t.Str(v->s));
            break;
          }
        }
      }
      auto [it, inserted] =
          key_index.try_emplace({Index(name), shapes, !host}, static_cast<uint32_t>(out.keys.size()));
      if (inserted) {
        out.keys.push_back(
            {std::string(t.Str(name)), std::move(shapes), std::string(t.Str(t.slices.category_id[r])), !host});
      }
      out.rows.push_back({r, it->second, t.slices.ts_ns[r], dur, std::max<int64_t>(0, self[r]),
                          StepOf(steps, t.slices.ts_ns[r])});
    }
  }
  return out;
}

}  // namespace cprof
