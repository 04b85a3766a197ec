// Track creation while events stream in, and the typing / naming pass at the end.
#include "import/json/track_mapper.h"

#include <fmt/format.h>

#include "base/hash.h"
#include "import/json/npu_dialect.h"

namespace cprof::json {
namespace {

constexpr int64_t kSyntheticBase = -(int64_t{1} << 33);
constexpr uint64_t kSyntheticSpan = uint64_t{1} << 40;

std::string_view TrimRight(std::string_view s) {
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

int64_t TrackMapper::PidOf(const JsonId& id) {
  switch (id.kind) {
    case JsonId::Kind::kNone: return 0;
    case JsonId::Kind::kNumber: return id.num;
    case JsonId::Kind::kString: break;
  }
  auto it = synthetic_.find(std::string(id.str));
  if (it != synthetic_.end()) return it->second;
  // Hash-derived, so the same string gets the same id in every trace; probe on a collision.
  int64_t value = kSyntheticBase - static_cast<int64_t>(Fnv1a(id.str) % kSyntheticSpan);
  while (synthetic_names_.count(value)) --value;
  synthetic_.emplace(std::string(id.str), value);
  synthetic_names_.emplace(value, std::string(id.str));
  return value;
}

int64_t TrackMapper::TidOf(const JsonId& id, int64_t pid) {
  return id.kind == JsonId::Kind::kNone ? pid : PidOf(id);
}

const std::string* TrackMapper::SyntheticName(int64_t id) const {
  auto it = synthetic_names_.find(id);
  return it == synthetic_names_.end() ? nullptr : &it->second;
}

const std::string* TrackMapper::ProcessName(int64_t pid) const {
  auto it = process_name_.find(pid);
  return it == process_name_.end() ? nullptr : &it->second;
}

TrackId TrackMapper::Leaf(int64_t pid, int64_t tid) {
  const std::pair<int64_t, int64_t> key{pid, tid};
  if (key == last_leaf_key_) return last_leaf_;
  auto [it, inserted] = leaves_.try_emplace(key, kNoTrack);
  if (inserted) {
    it->second = b_->AddTrack({.kind = TrackKind::kThread, .pid = pid, .tid = tid});
    leaf_order_.push_back(key);
  }
  last_leaf_key_ = key;
  last_leaf_ = it->second;
  return it->second;
}

TrackId TrackMapper::Device(TrackKind kind, int64_t device, int64_t stream, int64_t raw_pid, int64_t raw_tid) {
  auto [it, inserted] = device_by_row_.try_emplace({raw_pid, raw_tid}, kNoTrack);
  if (!inserted) return it->second;
  auto [dit, dinserted] = devices_.try_emplace({static_cast<int>(kind), device, stream}, kNoTrack);
  if (dinserted) {
    dit->second = b_->StreamTrack(kind, device, stream);
    device_rows_.push_back({dit->second, raw_pid, raw_tid, stream});
  }
  it->second = dit->second;
  return it->second;
}

TrackId TrackMapper::Process(int64_t pid) {
  auto [it, inserted] = processes_.try_emplace(pid, kNoTrack);
  if (inserted) it->second = b_->AddTrack({.kind = TrackKind::kProcess, .pid = pid});
  return it->second;
}

TrackId TrackMapper::Counter(int64_t pid, StringId name, StringId unit) {
  auto [it, inserted] = counters_.try_emplace({pid, Index(name)}, kNoTrack);
  if (inserted) {
    it->second = b_->AddTrack({.kind = TrackKind::kCounter, .name_id = name, .pid = pid, .unit_id = unit});
    owned_.push_back({it->second, pid});
  }
  return it->second;
}

TrackId TrackMapper::Async(int64_t pid, StringId cat, StringId name) {
  auto [it, inserted] = asyncs_.try_emplace({pid, Index(cat), Index(name)}, kNoTrack);
  if (inserted) {
    it->second = b_->AddTrack({.kind = TrackKind::kAsync, .name_id = name, .pid = pid});
    owned_.push_back({it->second, pid});
  }
  return it->second;
}

TrackId TrackMapper::GlobalInstants() {
  if (global_ == kNoTrack) {
    global_ = b_->AddTrack({.kind = TrackKind::kProcess, .name_id = b_->Intern("Global instants")});
  }
  return global_;
}

TrackId TrackMapper::FlowTrack(int64_t pid, int64_t tid, bool device_first) {
  auto dev = device_by_row_.find({pid, tid});
  if (dev != device_by_row_.end() && (device_first || !leaves_.count({pid, tid}))) return dev->second;
  return Leaf(pid, tid);
}

TrackId TrackMapper::KnownFlowTrack(int64_t pid, int64_t tid, bool device_first) {
  if (device_first) {
    auto dev = device_by_row_.find({pid, tid});
    return dev == device_by_row_.end() ? kNoTrack : dev->second;
  }
  auto leaf = leaves_.find({pid, tid});
  return leaf == leaves_.end() ? kNoTrack : leaf->second;
}

std::string TrackMapper::ThreadLabel(int64_t pid, int64_t tid) const {
  auto it = thread_name_.find({pid, tid});
  if (it != thread_name_.end()) return std::string(TrimRight(it->second));
  if (const std::string* s = SyntheticName(tid)) return *s;
  return {};
}

void TrackMapper::FinishLeaf(TrackId track, int64_t pid, int64_t tid, bool torch_npu) {
  TrackTable& t = b_->tracks();
  const uint32_t i = Index(track);
  const std::string* pname = ProcessName(pid);
  const NpuGroup group = torch_npu && pname ? NpuGroupOf(*pname) : NpuGroup::kNone;
  std::string name = ThreadLabel(pid, tid);
  if (group == NpuGroup::kNone) {
    t.parent_id[i] = Process(pid);
  } else {
    const int64_t device = NpuDeviceFromPid(pid);
    t.kind[i] = group == NpuGroup::kHardware        ? TrackKind::kNpuStream
                : group == NpuGroup::kCommunication ? TrackKind::kCommunication
                                                    : TrackKind::kAnalysis;
    t.parent_id[i] = b_->DeviceTrack(device);
    t.device[i] = device;
    t.stream[i] = group == NpuGroup::kHardware ? tid : kUnknown;
    if (name.empty() && group == NpuGroup::kHardware) name = fmt::format("Stream {}", tid);
    npu_devices_.insert(device);
  }
  t.name_id[i] = b_->Intern(name);
  if (auto s = thread_sort_.find({pid, tid}); s != thread_sort_.end()) t.sort_index[i] = static_cast<int32_t>(s->second);
}

void TrackMapper::Finish(bool torch_npu, int64_t rank) {
  for (const auto& key : leaf_order_) FinishLeaf(leaves_[key], key.first, key.second, torch_npu);
  TrackTable& t = b_->tracks();
  for (const Owned& o : owned_) t.parent_id[Index(o.track)] = Process(o.pid);

  for (const DeviceRow& r : device_rows_) {
    const uint32_t i = Index(r.track);
    std::string name = ThreadLabel(r.raw_pid, r.raw_tid);
    if (name.empty()) name = r.stream >= 0 ? fmt::format("stream {}", r.stream) : "device";
    t.name_id[i] = b_->Intern(name);
    if (auto s = thread_sort_.find({r.raw_pid, r.raw_tid}); s != thread_sort_.end()) {
      t.sort_index[i] = static_cast<int32_t>(s->second);
    }
  }
  for (const auto& [pid, track] : processes_) {
    const uint32_t i = Index(track);
    std::string name;
    if (const std::string* n = ProcessName(pid)) {
      name = *n;
    } else if (const std::string* s = SyntheticName(pid)) {
      name = *s;
    } else if (auto l = process_labels_.find(pid); l != process_labels_.end()) {
      name = l->second;
    }
    t.name_id[i] = b_->Intern(name);
    if (auto s = process_sort_.find(pid); s != process_sort_.end()) t.sort_index[i] = static_cast<int32_t>(s->second);
  }
  for (size_t i = 0; i < t.size(); ++i) {
    if (t.kind[i] != TrackKind::kDevice || t.name_id[i] != kEmptyString) continue;
    const int64_t d = t.device[i];
    auto l = process_labels_.find(d);
    if (npu_devices_.count(d)) {
      t.name_id[i] = b_->Intern(fmt::format("NPU {}", d));
    } else if (l != process_labels_.end() && l->second.rfind("GPU", 0) == 0) {
      t.name_id[i] = b_->Intern(l->second);  // Kineto's "GPU 0"; its process_name is the host's
    } else {
      t.name_id[i] = b_->Intern(fmt::format("GPU {}", d));
    }
    if (auto s = process_sort_.find(d); s != process_sort_.end() && !npu_devices_.count(d)) {
      t.sort_index[i] = static_cast<int32_t>(s->second);
    }
  }
  // Register the tracks made with AddTrack, so later lookups through the builder find them.
  for (const auto& [pid, track] : processes_) b_->AdoptTrack(track);
  for (const auto& key : leaf_order_) b_->AdoptTrack(leaves_[key]);
  for (const Owned& o : owned_) b_->AdoptTrack(o.track);
  if (rank >= 0) {
    for (size_t i = 0; i < t.size(); ++i) t.rank[i] = rank;
  }
}

}  // namespace cprof::json
