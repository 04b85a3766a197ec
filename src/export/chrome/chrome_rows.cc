// Track -> (pid, tid) rows of the Chrome JSON export.
#include "export/chrome/chrome_rows.h"

#include <map>
#include <set>
#include <string_view>
#include <utility>

namespace cprof {
namespace {

bool IsDeviceKind(TrackKind k) {
  return k == TrackKind::kDevice || k == TrackKind::kGpuStream || k == TrackKind::kNpuStream;
}

// torch_npu's process name for a group of device rows (see src/import/json/npu_dialect.cc).
std::string_view NpuGroupName(TrackKind k) {
  switch (k) {
    case TrackKind::kNpuStream: return "Ascend Hardware";
    case TrackKind::kCommunication: return "HCCL";
    case TrackKind::kAnalysis: return "Overlap Analysis";
    default: return {};
  }
}

}  // namespace

ChromeRows::ChromeRows(const Trace& trace) : trace_(trace), pid_(trace.tracks.size(), kSyntheticBase) {
  const TrackTable& t = trace.tracks;
  // Walk up to the first track with a pid of its own (or a device index); a bounded walk, so a
  // malformed parent loop cannot hang the export.
  for (uint32_t i = 0; i < t.size(); ++i) {
    int64_t pid = kSyntheticBase + i;
    uint32_t cur = i;
    for (uint32_t steps = 0; steps <= t.size(); ++steps) {
      if (t.pid[cur] != kUnknown) {
        pid = t.pid[cur];
        break;
      }
      if (IsDeviceKind(t.kind[cur]) && t.device[cur] != kUnknown) {
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
  const TrackId parent = t.parent_id[i];
  // A track below a thread with that thread's tid (the sampled Python stack beside the thread's
  // operators) gets a row of its own: sharing the tid, its slices were nested among the thread's
  // by time on import (ProfilerStep#1-9 came back under a sampled frame of step 0).
  const bool under_its_thread = parent != kNoTrack && Index(parent) < t.size() &&
                                t.kind[Index(parent)] == TrackKind::kThread && t.tid[Index(parent)] == t.tid[i];
  if (t.tid[i] != kUnknown && t.kind[i] != TrackKind::kProcess && !under_its_thread) {
    tid = t.tid[i];
  } else if ((t.kind[i] == TrackKind::kGpuStream || t.kind[i] == TrackKind::kNpuStream) && t.stream[i] != kUnknown &&
             t.pid[i] == kUnknown) {
    tid = t.stream[i];
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
  auto has_slices = [&](uint32_t i) { return trace_.track_slices(TrackId{i}).first != trace_.track_slices(TrackId{i}).second; };

  std::set<int64_t> named_pids;
  std::map<int64_t, std::string_view> group_names;  // pids of torch_npu device groups
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
    const TrackId parent = t.parent_id[i];
    if (t.pid[i] != kUnknown && parent != kNoTrack && Index(parent) < t.size() &&
        t.kind[Index(parent)] == TrackKind::kDevice && !NpuGroupName(k).empty()) {
      group_names.emplace(pid_[i], NpuGroupName(k));
    }
    // Processes, devices and counter tracks (C events carry their names) need a row name
    // only for slices of their own.
    const bool own_row = k != TrackKind::kProcess && k != TrackKind::kDevice && k != TrackKind::kCounter;
    if (!own_row && !has_slices(i)) continue;
    const Row r = SliceRow(TrackId{i});
    if (!named_rows.insert({r.pid, r.tid}).second) continue;
    if (!name.empty()) event("thread_name", r.pid, r.tid, "name", [&] { out->String(name); });
    if (t.sort_index[i] != 0) event("thread_sort_index", r.pid, r.tid, "sort_index", [&] { out->Int(t.sort_index[i]); });
  }
  for (const auto& [pid, name] : group_names) {
    if (named_pids.insert(pid).second) event("process_name", pid, 0, "name", [&] { out->String(name); });
  }
}

}  // namespace cprof
