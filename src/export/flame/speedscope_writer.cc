// Speedscope JSON: evented profiles from slices, sampled profiles from CPU samples.
#include "export/flame/speedscope_writer.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "export/flame/json_string.h"

namespace cprof {
namespace {

class FrameIndex {
 public:
  int Get(const std::string& name) {
    auto [it, added] = index_.try_emplace(name, static_cast<int>(names_.size()));
    if (added) names_.push_back(name);
    return it->second;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::unordered_map<std::string, int> index_;
  std::vector<std::string> names_;
};

struct Open {
  int frame;
  int64_t end;
};

// Appends one evented profile for a track; false if the track has nothing in the window.
bool AppendEvented(const Trace& trace, TrackId track, const FlameOptions& o, int64_t origin,
                   FrameIndex* frames, std::string* out) {
  auto [begin, end] = trace.track_slices(track);
  std::string events;
  std::vector<Open> stack;
  int64_t first = -1, last = 0;
  auto emit = [&](char type, int frame, int64_t at) {
    if (!events.empty()) events.push_back(',');
    events += fmt::format("{{\"type\":\"{}\",\"frame\":{},\"at\":{}}}", type, frame, at - origin);
    if (first < 0) first = at;
    last = at;
  };
  auto close_until = [&](int64_t t) {
    while (!stack.empty() && stack.back().end <= t) {
      emit('C', stack.back().frame, stack.back().end);
      stack.pop_back();
    }
  };
  for (uint32_t row = begin; row < end; ++row) {
    int64_t start = std::max(trace.slices.ts_ns[row], o.start_ns);
    int64_t stop = trace.slices.dur_ns[row] < 0 ? trace.end_ns : trace.slice_end(row);
    stop = std::min(stop, o.end_ns);
    if (stop <= start) continue;
    close_until(start);
    if (!stack.empty()) stop = std::min(stop, stack.back().end);
    if (stop <= start) continue;
    int frame = frames->Get(std::string(trace.Str(trace.slices.name_id[row])));
    emit('O', frame, start);
    stack.push_back({frame, stop});
  }
  close_until(INT64_MAX);
  if (first < 0) return false;
  out->append("{\"type\":\"evented\",\"name\":");
  AppendJsonString(trace.TrackPath(track), out);
  *out += fmt::format(",\"unit\":\"nanoseconds\",\"startValue\":{},\"endValue\":{},\"events\":[",
                      first - origin, last - origin);
  out->append(events);
  out->append("]}");
  return true;
}

}  // namespace

std::string SpeedscopeJson(const Trace& trace, const FlameOptions& o, const std::string& name) {
  FrameIndex frames;
  std::vector<std::string> profiles;
  int64_t origin = std::max(trace.start_ns, o.start_ns);
  for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
    TrackKind kind = trace.tracks.kind[t];
    if (kind == TrackKind::kCounter) continue;
    bool device = IsDeviceTrack(kind);
    if ((o.tracks == FlameTracks::kHost && device) || (o.tracks == FlameTracks::kDevice && !device)) continue;
    std::string p;
    if (AppendEvented(trace, TrackId{t}, o, origin, &frames, &p)) profiles.push_back(std::move(p));
  }

  // Samples, per thread, in time order.
  std::map<uint32_t, std::vector<uint32_t>> by_track;
  for (uint32_t i = 0; i < trace.samples.size(); ++i) {
    int64_t ts = trace.samples.ts_ns[i];
    if (ts < o.start_ns || ts >= o.end_ns) continue;
    by_track[Index(trace.samples.track_id[i])].push_back(i);
  }
  std::unordered_map<uint32_t, std::string> stack_text;  // stack id -> "[f,f,f]"
  for (auto& [track, rows] : by_track) {
    std::stable_sort(rows.begin(), rows.end(),
                     [&](uint32_t a, uint32_t b) { return trace.samples.ts_ns[a] < trace.samples.ts_ns[b]; });
    std::string samples, weights;
    int64_t total = 0;
    for (uint32_t r : rows) {
      StackId sid = trace.samples.stack_id[r];
      auto it = stack_text.find(Index(sid));
      if (it == stack_text.end()) {
        std::vector<int> ids;
        for (StackId st = sid; st != kNoStack && Index(st) < trace.stacks.size() && ids.size() < 100000;
             st = trace.stacks.parent_id[Index(st)]) {
          ids.push_back(frames.Get(FrameName(trace, trace.stacks.frame_id[Index(st)])));
        }
        std::string text = "[";
        for (size_t k = ids.size(); k-- > 0;) {
          text += std::to_string(ids[k]);
          if (k) text.push_back(',');
        }
        text.push_back(']');
        it = stack_text.emplace(Index(sid), std::move(text)).first;
      }
      if (!samples.empty()) samples.push_back(',');
      samples += it->second;
      if (!weights.empty()) weights.push_back(',');
      weights += std::to_string(trace.samples.weight[r]);
      total += trace.samples.weight[r];
    }
    std::string p = "{\"type\":\"sampled\",\"name\":";
    std::string label = track < trace.tracks.size() ? trace.TrackPath(TrackId{track}) : "samples";
    AppendJsonString(label + " (CPU samples)", &p);
    p += fmt::format(",\"unit\":\"none\",\"startValue\":0,\"endValue\":{},\"samples\":[{}],\"weights\":[{}]}}",
                     total, samples, weights);
    profiles.push_back(std::move(p));
  }

  std::string out = "{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",";
  out += "\"exporter\":\"cann-profiler\",\"name\":";
  AppendJsonString(name, &out);
  out += ",\"activeProfileIndex\":0,\"shared\":{\"frames\":[";
  for (size_t i = 0; i < frames.names().size(); ++i) {
    if (i) out.push_back(',');
    out += "{\"name\":";
    AppendJsonString(frames.names()[i], &out);
    out.push_back('}');
  }
  out += "]},\"profiles\":[";
  for (size_t i = 0; i < profiles.size(); ++i) {
    if (i) out.push_back(',');
    out += profiles[i];
  }
  out += "]}\n";
  return out;
}

}  // namespace cprof
