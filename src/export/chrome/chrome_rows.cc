// Track -> (pid, tid) rows of the Chrome JSON export.
#include "export/chrome/chrome_rows.h"

#include <set>
#include <utility>

namespace cprof {

ChromeRows::ChromeRows(const Trace& trace) : trace_(trace), pid_(trace.tracks.size(), kSyntheticBase) {
  const TrackTable& t = trace.tracks;
  // Parents come before children in every builder-made trace, but do not rely on it: resolve
  // with a walk up that stops at the first track carrying an id of its own.
  for (uint32_t i = 0; i < t.size(); ++i) {
    int64_t pid = kSyntheticBase + i;
    uint32_t cur = i;
    for (uint32_t steps = 0; steps <= t.size(); ++steps) {
      const TrackKind k = t.kind[cur];
      if ((k == TrackKind::kProcess || k == TrackKind::kThread) && t.pid[cur] != kUnknown) {
        pid = t.pid[cur];
        break;
      }
      if ((k == TrackKind::kDevice || k == TrackKind::kGpuStream || k == TrackKind::kNpuStream) &&
          t.device[cur] != kUnknown) {
        pid = t.device[cur];
        break;
      }
      const TrackId parent = t.parent_id[cur];
      if (parent == kNoTrack || Index(parent) >= t.size()) {
        pid = kSyntheticBase + cur;  // the root of this subtree stands for a process
        break;
      }
      cur = Index(parent);
    }
    pid_[i] = pid;
  }
}

ChromeRows::Row ChromeRows::SliceRow(TrackId track) const {
  if (track == kNoTrack || Index(track) >= trace_.tracks.size()) return {kSyntheticBase, kSyntheticBase};
  const TrackTable& t = trace_.tracks;
  const uint32_t i = Index(track);
  int64_t tid = kSyntheticBase + i;
  switch (t.kind[i]) {
    case TrackKind::kThread:
      if (t.tid[i] != kUnknown) tid = t.tid[i];
      break;
    case TrackKind::kGpuStream:
    case TrackKind::kNpuStream:
      if (t.stream[i] != kUnknown) tid = t.stream[i];
      break;
    default: break;
  }
  return {pid_[i], tid};
}

void ChromeRows::WriteMetadataEvents(JsonSink* out) const {
  const TrackTable& t = trace_.tracks;
  auto event = [&](std::string_view name, int64_t pid, int64_t tid, std::string_view key, auto write_value) {
    out->NextElement();
    out->Raw("{\"ph\":\"M\",\"name\":\"");
    out->Raw(name);
    out->Raw("\",\"pid\":");
    out->Int(pid);
    out->Raw(",\"tid\":");
    out->Int(tid);
    out->Raw(",\"args\":{\"");
    out->Raw(key);
    out->Raw("\":");
    write_value();
    out->Raw("}}");
  };
  std::set<int64_t> named_pids;
  std::set<std::pair<int64_t, int64_t>> named_rows;
  for (uint32_t i = 0; i < t.size(); ++i) {
    const std::string_view name = trace_.Str(t.name_id[i]);
    const TrackKind k = t.kind[i];
    const bool root = t.parent_id[i] == kNoTrack;
    // A process, a device, or a root that got a synthetic pid of its own names its pid.
    if (k == TrackKind::kProcess || k == TrackKind::kDevice || (root && pid_[i] == kSyntheticBase + i)) {
      if (named_pids.insert(pid_[i]).second) {
        if (!name.empty()) event("process_name", pid_[i], 0, "name", [&] { out->String(name); });
        if (t.sort_index[i] != 0) event("process_sort_index", pid_[i], 0, "sort_index", [&] { out->Int(t.sort_index[i]); });
      }
    }
    // Processes, devices and counter tracks (C events carry their names) need a row name
    // only for slices of their own.
    const bool own_row = k != TrackKind::kProcess && k != TrackKind::kDevice && k != TrackKind::kCounter;
    if (!own_row && trace_.track_slices(TrackId{i}).first == trace_.track_slices(TrackId{i}).second) continue;
    const Row r = SliceRow(TrackId{i});
    if (!named_rows.insert({r.pid, r.tid}).second) continue;
    if (!name.empty()) event("thread_name", r.pid, r.tid, "name", [&] { out->String(name); });
    if (t.sort_index[i] != 0) event("thread_sort_index", r.pid, r.tid, "sort_index", [&] { out->Int(t.sort_index[i]); });
  }
}

}  // namespace cprof
