// Maps the (pid, tid) rows of a JSON trace to model tracks. Which kind a row is can depend on
// metadata that may come after its events (torch_npu's "Ascend Hardware" process_name), so rows
// are created as parentless leaves while events stream in, and Finish() gives every track its
// kind, parent, name and sort index once all metadata is known.
//
//   TrackMapper tracks(&builder);
//   TrackId t = tracks.Leaf(tracks.PidOf(ev.pid), tid);       // host row, kind decided later
//   TrackId k = tracks.Device(TrackKind::kGpuStream, 0, 7, 0, 7);  // Kineto kernel row
//   tracks.SetProcessName(pid, "python3");
//   tracks.Finish(/*torch_npu=*/false, /*rank=*/-1);
//
// Builder thread only.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "import/json/json_event.h"
#include "model/trace_builder.h"

namespace cprof::json {

class TrackMapper {
 public:
  explicit TrackMapper(TraceBuilder* builder) : b_(builder) {}

  // pid / tid values. Strings ("Spans", "CPU functions") get stable synthetic ids below -2^33,
  // a range no real pid or tid uses, and become the default process / thread name. A missing
  // pid is 0 and a missing tid is the pid (as Perfetto reads them).
  int64_t PidOf(const JsonId& id);
  int64_t TidOf(const JsonId& id, int64_t pid);
  // The string a synthetic id stands for, or nullptr.
  const std::string* SyntheticName(int64_t id) const;

  // A host row (thread, or a torch_npu device row once Finish() knows its process name).
  TrackId Leaf(int64_t pid, int64_t tid);
  // A device stream of `kind` (kGpuStream, kNpuStream); raw_pid/raw_tid are the row as written,
  // used to find the track again for flow events and to name it from M events.
  TrackId Device(TrackKind kind, int64_t device, int64_t stream, int64_t raw_pid, int64_t raw_tid);
  TrackId Process(int64_t pid);
  TrackId Counter(int64_t pid, StringId name, StringId unit);
  TrackId Async(int64_t pid, StringId cat, StringId name);
  TrackId GlobalInstants();
  // The track a flow event on raw (pid, tid) binds on: the device stream written as that row
  // when `device_first` (launch flows) or when no host row exists, else the host row.
  TrackId FlowTrack(int64_t pid, int64_t tid, bool device_first);
  // FlowTrack() if the rows seen so far already decide it (later rows cannot change the
  // answer), else kNoTrack.
  TrackId KnownFlowTrack(int64_t pid, int64_t tid, bool device_first);

  // M events. The last value wins, as in catapult.
  void SetProcessName(int64_t pid, std::string_view name) { process_name_[pid] = name; }
  void SetProcessLabels(int64_t pid, std::string_view labels) { process_labels_[pid] = labels; }
  void SetProcessSortIndex(int64_t pid, int64_t index) { process_sort_[pid] = index; }
  void SetThreadName(int64_t pid, int64_t tid, std::string_view name) { thread_name_[{pid, tid}] = name; }
  void SetThreadSortIndex(int64_t pid, int64_t tid, int64_t index) { thread_sort_[{pid, tid}] = index; }
  const std::string* ProcessName(int64_t pid) const;

  // Kinds, parents, names, sort indexes and ranks of every track made here. With `torch_npu`,
  // rows of the "Ascend Hardware", "HCCL" and "Overlap Analysis" groups become NPU stream,
  // communication and analysis tracks under their NPU device. `rank` >= 0 is set on all tracks.
  void Finish(bool torch_npu, int64_t rank);

 private:
  struct PairHash {
    size_t operator()(const std::pair<int64_t, int64_t>& k) const {
      uint64_t h = static_cast<uint64_t>(k.first) * 0x9E3779B97F4A7C15ull ^ static_cast<uint64_t>(k.second);
      return static_cast<size_t>(h ^ (h >> 31));
    }
  };
  using PairMap = std::unordered_map<std::pair<int64_t, int64_t>, TrackId, PairHash>;
  struct Owned {  // a track whose parent Finish() sets to the process of `pid`
    TrackId track;
    int64_t pid;
  };

  void FinishLeaf(TrackId t, int64_t pid, int64_t tid, bool torch_npu);
  std::string ThreadLabel(int64_t pid, int64_t tid) const;

  TraceBuilder* b_;
  std::unordered_map<std::string, int64_t> synthetic_;
  std::unordered_map<int64_t, std::string> synthetic_names_;
  PairMap leaves_;
  std::vector<std::pair<int64_t, int64_t>> leaf_order_;
  PairMap device_by_row_;  // raw (pid, tid) -> device stream track
  std::map<std::tuple<int, int64_t, int64_t>, TrackId> devices_;
  struct DeviceRow {
    TrackId track;
    int64_t raw_pid, raw_tid, stream;
  };
  std::vector<DeviceRow> device_rows_;
  std::unordered_map<int64_t, TrackId> processes_;
  std::map<std::pair<int64_t, uint32_t>, TrackId> counters_;
  std::map<std::tuple<int64_t, uint32_t, uint32_t>, TrackId> asyncs_;
  std::vector<Owned> owned_;  // counters and async tracks
  TrackId global_ = kNoTrack;
  std::set<int64_t> npu_devices_;
  // Memo of the last Leaf() lookup: events of one thread tend to come in runs.
  std::pair<int64_t, int64_t> last_leaf_key_{INT64_MIN, INT64_MIN};
  TrackId last_leaf_ = kNoTrack;

  std::unordered_map<int64_t, std::string> process_name_, process_labels_;
  std::unordered_map<int64_t, int64_t> process_sort_;
  std::map<std::pair<int64_t, int64_t>, std::string> thread_name_;
  std::map<std::pair<int64_t, int64_t>, int64_t> thread_sort_;
};

}  // namespace cprof::json
