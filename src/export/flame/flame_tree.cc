// Aggregation of slices and samples into flame trees.
#include "export/flame/flame_tree.h"

#include <algorithm>

#include <fmt/format.h>

namespace cprof {
namespace {

bool Selected(TrackKind kind, FlameTracks which) {
  if (kind == TrackKind::kCounter) return false;
  bool device = IsDeviceTrack(kind);
  switch (which) {
    case FlameTracks::kHost: return !device;
    case FlameTracks::kDevice: return device;
    case FlameTracks::kAll: return true;
  }
  return true;
}

}  // namespace

FlameTree::FlameTree(std::string title_in, std::string unit_in)
    : title(std::move(title_in)), unit(std::move(unit_in)) {
  parent.push_back(kNoParent);
  name_id.push_back(strings.Intern("all"));
  value.push_back(0);
}

uint32_t FlameTree::Child(uint32_t node, std::string_view child_name) {
  StringId id = strings.Intern(child_name);
  uint64_t key = (static_cast<uint64_t>(node) << 32) | Index(id);
  auto [it, added] = children_.try_emplace(key, static_cast<uint32_t>(parent.size()));
  if (added) {
    parent.push_back(node);
    name_id.push_back(id);
    value.push_back(0);
    if (!baseline.empty()) baseline.push_back(0);
  }
  return it->second;
}

std::vector<int64_t> FlameTree::SelfValues() const {
  std::vector<int64_t> self = value;
  for (size_t n = 1; n < size(); ++n) self[parent[n]] -= value[n];
  for (int64_t& v : self) v = std::max<int64_t>(0, v);
  return self;
}

std::string_view FlameName(std::string_view name, std::string* scratch) {
  size_t hash = name.rfind('#');
  if (hash == std::string_view::npos || hash + 1 == name.size()) return name;
  for (size_t i = hash + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return name;
  }
  scratch->assign(name.substr(0, hash + 1));
  scratch->push_back('*');
  return *scratch;
}

FlameTree BuildSliceFlameTree(const Trace& trace, const FlameOptions& options) {
  const char* title = options.tracks == FlameTracks::kHost     ? "Host operators (time)"
                      : options.tracks == FlameTracks::kDevice ? "Device kernels (time)"
                                                               : "All slices (time)";
  FlameTree tree(title, "ns");
  const SliceTable& s = trace.slices;
  std::vector<uint32_t> node_of(s.size(), FlameTree::kRoot);
  std::vector<int64_t> clip_end(s.size(), 0);  // the slice's end clipped to parent and window
  std::string scratch;
  for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
    if (!Selected(trace.tracks.kind[t], options.tracks)) continue;
    auto [begin, end] = trace.track_slices(TrackId{t});
    if (begin == end) continue;
    uint32_t track_node = options.by_track ? tree.Child(FlameTree::kRoot, trace.TrackPath(TrackId{t}))
                                           : FlameTree::kRoot;
    int64_t track_total = 0;
    for (uint32_t row = begin; row < end; ++row) {
      int64_t start = std::max(s.ts_ns[row], options.start_ns);
      int64_t stop = std::min(trace.slice_end(row), options.end_ns);
      if (s.dur_ns[row] < 0) stop = std::min(trace.end_ns, options.end_ns);
      uint32_t parent_node = track_node;
      SliceId p = s.parent_id[row];
      if (p != kNoSlice && Index(p) >= begin && Index(p) < row) {
        parent_node = node_of[Index(p)];
        start = std::max(start, s.ts_ns[Index(p)]);
        stop = std::min(stop, clip_end[Index(p)]);
        if (parent_node == FlameTree::kRoot && options.by_track) parent_node = track_node;
      }
      clip_end[row] = stop;
      if (stop <= start) {
        node_of[row] = parent_node;  // outside the window: children attach to the parent's node
        clip_end[row] = std::min(clip_end[row], start);
        continue;
      }
      uint32_t node = tree.Child(parent_node, FlameName(trace.Str(s.name_id[row]), &scratch));
      node_of[row] = node;
      tree.value[node] += stop - start;
      if (s.depth[row] == 0 || p == kNoSlice) track_total += stop - start;
    }
    if (options.by_track) tree.value[track_node] += track_total;
    tree.value[FlameTree::kRoot] += track_total;
  }
  return tree;
}

std::string FrameName(const Trace& trace, FrameId frame) {
  if (frame == kNoFrame || Index(frame) >= trace.frames.size()) return "[unknown]";
  uint32_t f = Index(frame);
  std::string_view fn = trace.Str(trace.frames.function_id[f]);
  if (!fn.empty()) return std::string(fn);
  std::string_view mod = trace.Str(trace.frames.module_id[f]);
  uint64_t addr = trace.frames.address[f];
  if (!mod.empty()) return fmt::format("{}+0x{:x}", mod, addr);
  return fmt::format("0x{:x}", addr);
}

FlameTree BuildSampleFlameTree(const Trace& trace, const FlameOptions& options) {
  FlameTree tree("CPU samples", "samples");
  const SampleTable& smp = trace.samples;
  std::unordered_map<uint64_t, uint32_t> memo;  // (track node << 32 | stack) -> node
  std::vector<uint32_t> track_nodes(trace.tracks.size(), UINT32_MAX);
  std::vector<FrameId> frames;
  for (size_t i = 0; i < smp.size(); ++i) {
    if (smp.ts_ns[i] < options.start_ns || smp.ts_ns[i] >= options.end_ns) continue;
    uint32_t base = FlameTree::kRoot;
    if (options.by_track && smp.track_id[i] != kNoTrack && Index(smp.track_id[i]) < trace.tracks.size()) {
      uint32_t& tn = track_nodes[Index(smp.track_id[i])];
      if (tn == UINT32_MAX) tn = tree.Child(FlameTree::kRoot, trace.TrackPath(smp.track_id[i]));
      base = tn;
    }
    int64_t w = smp.weight[i];
    uint64_t key = (static_cast<uint64_t>(base) << 32) | Index(smp.stack_id[i]);
    auto it = memo.find(key);
    uint32_t leaf;
    if (it != memo.end()) {
      leaf = it->second;
    } else {
      frames.clear();
      for (StackId st = smp.stack_id[i]; st != kNoStack && Index(st) < trace.stacks.size();
           st = trace.stacks.parent_id[Index(st)]) {
        frames.push_back(trace.stacks.frame_id[Index(st)]);
        if (frames.size() > 100000) break;  // a cycle in a malformed stack table
      }
      leaf = base;
      for (size_t k = frames.size(); k-- > 0;) leaf = tree.Child(leaf, FrameName(trace, frames[k]));
      memo.emplace(key, leaf);
    }
    for (uint32_t n = leaf; n != FlameTree::kNoParent; n = tree.parent[n]) tree.value[n] += w;
  }
  return tree;
}

void AttachBaseline(FlameTree* tree, const FlameTree& baseline) {
  tree->baseline.assign(tree->size(), 0);
  std::vector<uint32_t> map(baseline.size(), FlameTree::kRoot);
  for (uint32_t n = 0; n < baseline.size(); ++n) {
    uint32_t mine = n == FlameTree::kRoot ? FlameTree::kRoot : tree->Child(map[baseline.parent[n]], baseline.name(n));
    map[n] = mine;
    tree->baseline[mine] += baseline.value[n];
  }
}

}  // namespace cprof
