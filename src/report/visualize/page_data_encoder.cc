// The performance map's data block.
#include "report/visualize/page_data_encoder.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace cprof {
namespace {

constexpr int64_t kMaxExactInJs = (int64_t{1} << 53);

// Stable codes of track kinds in the page (web/src/data/trace_data.ts, TrackKind).
uint32_t KindCode(TrackKind k) {
  switch (k) {
    case TrackKind::kProcess: return 0;
    case TrackKind::kThread: return 1;
    case TrackKind::kDevice: return 2;
    case TrackKind::kGpuStream: return 3;
    case TrackKind::kNpuStream: return 4;
    case TrackKind::kCommunication: return 5;
    case TrackKind::kCounter: return 6;
    case TrackKind::kAsync: return 7;
    case TrackKind::kAnalysis: return 8;
    case TrackKind::kCpuCore: return 9;
  }
  return 1;
}

uint32_t FlowKindCode(FlowKind k) {
  switch (k) {
    case FlowKind::kOther: return 0;
    case FlowKind::kLaunch: return 1;
    case FlowKind::kFwdBwd: return 2;
    case FlowKind::kQueue: return 3;
    case FlowKind::kHostToDevice: return 4;
  }
  return 0;
}

// Arg value types in the page (ArgType in trace_data.ts).
enum ArgCode : uint8_t { kNull = 0, kInt = 1, kUint = 2, kDouble = 3, kString = 4, kBool = 5, kBigNumber = 6 };

}  // namespace

PageDataEncoder::PageDataEncoder(const Trace& trace, int64_t start_ns, int64_t end_ns)
    : trace_(trace), start_ns_(start_ns), end_ns_(end_ns) {
  const SliceTable& s = trace.slices;
  slice_index_.assign(s.size(), UINT32_MAX);
  kept_rows_.reserve(s.size());
  for (uint32_t row = 0; row < s.size(); ++row) {
    int64_t end = s.dur_ns[row] < 0 ? trace.end_ns : trace.slice_end(row);
    bool overlaps = s.ts_ns[row] < end_ns && (end > start_ns || (end == s.ts_ns[row] && end >= start_ns));
    if (!overlaps) continue;
    slice_index_[row] = static_cast<uint32_t>(kept_rows_.size());
    kept_rows_.push_back(row);
  }
  kept_ = kept_rows_.size();
  trace_string_index_.assign(trace.strings.size(), 0);
  arg_set_index_.assign(trace.args.set_count(), 0);
  Str(std::string_view());  // page string 0 is ""
}

uint32_t PageDataEncoder::Str(StringId id) {
  uint32_t& slot = trace_string_index_[Index(id)];
  if (slot == 0) {
    std::string_view text = trace_.Str(id);
    auto it = other_strings_.find(std::string(text));
    if (it != other_strings_.end()) {
      slot = it->second + 1;
    } else {
      strings_.push_back(text);
      slot = static_cast<uint32_t>(strings_.size());
      other_strings_.emplace(std::string(text), slot - 1);
    }
  }
  return slot - 1;
}

uint32_t PageDataEncoder::Str(std::string_view s) {
  auto it = other_strings_.find(std::string(s));
  if (it != other_strings_.end()) return it->second;
  owned_.emplace_back(s);
  strings_.push_back(owned_.back());
  uint32_t index = static_cast<uint32_t>(strings_.size() - 1);
  other_strings_.emplace(owned_.back(), index);
  return index;
}

void PageDataEncoder::EncodeTracks(ByteWriter& w) {
  const TrackTable& t = trace_.tracks;
  const size_t n = t.size();
  w.Varint(n);
  for (size_t i = 0; i < n; ++i) w.Varint(t.parent_id[i] == kNoTrack ? 0 : Index(t.parent_id[i]) + 1);
  for (size_t i = 0; i < n; ++i) w.Varint(KindCode(t.kind[i]));
  for (size_t i = 0; i < n; ++i) w.Varint(Str(t.name_id[i]));
  for (size_t i = 0; i < n; ++i) w.Svarint(t.pid[i]);
  for (size_t i = 0; i < n; ++i) w.Svarint(t.tid[i]);
  for (size_t i = 0; i < n; ++i) w.Svarint(t.device[i]);
  for (size_t i = 0; i < n; ++i) w.Svarint(t.stream[i]);
  for (size_t i = 0; i < n; ++i) w.Svarint(t.rank[i]);
  for (size_t i = 0; i < n; ++i) w.Svarint(t.sort_index[i]);
  for (size_t i = 0; i < n; ++i) w.Varint(Str(t.unit_id[i]));
  // Kept slices per track (slices are sorted by track, so kept rows are too).
  std::vector<uint32_t> count(n, 0);
  for (uint32_t row : kept_rows_) {
    TrackId tr = trace_.slices.track_id[row];
    if (Index(tr) < n) ++count[Index(tr)];
  }
  for (size_t i = 0; i < n; ++i) w.Varint(count[i]);
}

void PageDataEncoder::EncodeSlices(ByteWriter& w) {
  const SliceTable& s = trace_.slices;
  // ts: delta from the previous kept slice of the same track; the first is relative to the
  // trace start.
  TrackId prev_track = kNoTrack;
  int64_t prev = 0;
  for (uint32_t row : kept_rows_) {
    if (s.track_id[row] != prev_track) {
      prev_track = s.track_id[row];
      prev = trace_.start_ns;
    }
    w.Svarint(s.ts_ns[row] - prev);
    prev = s.ts_ns[row];
  }
  for (uint32_t row : kept_rows_) w.Varint(s.dur_ns[row] < 0 ? 0 : static_cast<uint64_t>(s.dur_ns[row]) + 1);
  for (uint32_t row : kept_rows_) w.Varint(Str(s.name_id[row]));
  for (uint32_t row : kept_rows_) w.Varint(Str(s.category_id[row]));
  for (uint32_t row : kept_rows_) w.Varint(s.depth[row]);
  for (uint32_t row : kept_rows_) {
    ArgSetId set = s.arg_set_id[row];
    if (set == kNoArgs || Index(set) >= arg_set_index_.size()) {
      w.Varint(0);
      continue;
    }
    uint32_t& slot = arg_set_index_[Index(set)];
    if (slot == 0) {
      arg_sets_.push_back(Index(set));
      slot = static_cast<uint32_t>(arg_sets_.size());
    }
    w.Varint(slot);
  }
}

void PageDataEncoder::EncodeArgs(ByteWriter& w) {
  const ArgTable& a = trace_.args;
  w.Varint(arg_sets_.size());
  for (uint32_t set : arg_sets_) w.Varint(a.end(ArgSetId{set}) - a.begin(ArgSetId{set}));
  for (uint32_t set : arg_sets_) {
    for (uint32_t r = a.begin(ArgSetId{set}); r < a.end(ArgSetId{set}); ++r) {
      w.Varint(Str(a.key_id[r]));
      const Value& v = a.value[r];
      switch (v.type) {
        case Value::Type::kNull: w.U8(kNull); break;
        case Value::Type::kInt:
          if (v.i > -kMaxExactInJs && v.i < kMaxExactInJs) {
            w.U8(kInt);
            w.Svarint(v.i);
          } else {
            w.U8(kBigNumber);
            w.Varint(Str(std::to_string(v.i)));
          }
          break;
        case Value::Type::kUint:
          if (v.u < static_cast<uint64_t>(kMaxExactInJs)) {
            w.U8(kUint);
            w.Varint(v.u);
          } else {
            w.U8(kBigNumber);
            w.Varint(Str(std::to_string(v.u)));
          }
          break;
        case Value::Type::kDouble: w.U8(kDouble); w.F64(v.d); break;
        case Value::Type::kString: w.U8(kString); w.Varint(Str(v.s)); break;
        case Value::Type::kBool: w.U8(kBool); w.U8(v.b ? 1 : 0); break;
      }
    }
  }
}

void PageDataEncoder::EncodeFlows(ByteWriter& w) {
  const FlowTable& f = trace_.flows;
  std::vector<uint32_t> kept;
  for (uint32_t i = 0; i < f.size(); ++i) {
    if (f.out_slice_id[i] == kNoSlice || f.in_slice_id[i] == kNoSlice) continue;
    if (SliceIndex(Index(f.out_slice_id[i])) < 0 || SliceIndex(Index(f.in_slice_id[i])) < 0) continue;
    kept.push_back(i);
  }
  w.Varint(kept.size());
  for (uint32_t i : kept) w.Varint(SliceIndex(Index(f.out_slice_id[i])));
  for (uint32_t i : kept) w.Varint(SliceIndex(Index(f.in_slice_id[i])));
  for (uint32_t i : kept) w.Varint(FlowKindCode(f.kind[i]));
  for (uint32_t i : kept) w.Varint(Str(f.name_id[i]));
}

void PageDataEncoder::EncodeCounters(ByteWriter& w) {
  const CounterTable& c = trace_.counters;
  std::vector<uint32_t> order(c.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    return c.track_id[a] != c.track_id[b] ? Index(c.track_id[a]) < Index(c.track_id[b]) : c.ts_ns[a] < c.ts_ns[b];
  });
  // Per track: the points in the window, plus the last one before it (the level at its start).
  std::vector<std::pair<uint32_t, std::vector<uint32_t>>> series;
  for (size_t k = 0; k < order.size();) {
    TrackId track = c.track_id[order[k]];
    size_t e = k;
    while (e < order.size() && c.track_id[order[e]] == track) ++e;
    std::vector<uint32_t> rows;
    for (size_t j = k; j < e; ++j) {
      uint32_t r = order[j];
      if (c.ts_ns[r] >= end_ns_) break;
      if (c.ts_ns[r] < start_ns_) {
        if (!rows.empty()) rows.clear();
        rows.push_back(r);  // only the latest one before the window survives
        continue;
      }
      rows.push_back(r);
    }
    if (!rows.empty() && track != kNoTrack) series.emplace_back(Index(track), std::move(rows));
    k = e;
  }
  w.Varint(series.size());
  for (auto& [track, rows] : series) {
    w.Varint(track);
    w.Varint(rows.size());
    int64_t prev = trace_.start_ns;
    for (uint32_t r : rows) {
      w.Svarint(c.ts_ns[r] - prev);
      prev = c.ts_ns[r];
    }
    bool integral = std::all_of(rows.begin(), rows.end(), [&](uint32_t r) {
      double v = c.value[r];
      return std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 1e15;
    });
    w.U8(integral ? 0 : 1);
    int64_t pv = 0;
    for (uint32_t r : rows) {
      if (integral) {
        int64_t v = static_cast<int64_t>(c.value[r]);
        w.Svarint(v - pv);
        pv = v;
      } else {
        w.F64(c.value[r]);
      }
    }
  }
}

void PageDataEncoder::EncodeMemory(ByteWriter& w) {
  const MemoryEventTable& m = trace_.memory_events;
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < m.size(); ++i) {
    if (m.ts_ns[i] >= start_ns_ && m.ts_ns[i] < end_ns_) rows.push_back(i);
  }
  std::stable_sort(rows.begin(), rows.end(), [&](uint32_t a, uint32_t b) { return m.ts_ns[a] < m.ts_ns[b]; });
  w.Varint(rows.size());
  int64_t prev = trace_.start_ns;
  for (uint32_t r : rows) {
    w.Svarint(m.ts_ns[r] - prev);
    prev = m.ts_ns[r];
  }
  for (uint32_t r : rows) w.Varint(m.track_id[r] == kNoTrack ? 0 : Index(m.track_id[r]) + 1);
  for (uint32_t r : rows) w.Svarint(m.device[r]);
  for (uint32_t r : rows) w.Svarint(m.bytes[r]);
  for (uint32_t r : rows) w.Varint(m.total_allocated[r] < 0 ? 0 : static_cast<uint64_t>(m.total_allocated[r]) + 1);
  for (uint32_t r : rows) w.Varint(m.total_reserved[r] < 0 ? 0 : static_cast<uint64_t>(m.total_reserved[r]) + 1);
}

void PageDataEncoder::EncodeFlames(ByteWriter& w, const std::vector<FlameTree>& flames) {
  w.Varint(flames.size());
  for (const FlameTree& t : flames) {
    w.Varint(Str(t.title));
    w.Varint(Str(t.unit));
    w.U8(t.has_baseline() ? 1 : 0);
    w.Varint(t.size());
    for (uint32_t n = 0; n < t.size(); ++n) w.Varint(t.parent[n] == FlameTree::kNoParent ? 0 : n - t.parent[n]);
    for (uint32_t n = 0; n < t.size(); ++n) w.Varint(Str(t.name(n)));
    for (uint32_t n = 0; n < t.size(); ++n) w.Varint(static_cast<uint64_t>(std::max<int64_t>(0, t.value[n])));
    if (t.has_baseline()) {
      for (uint32_t n = 0; n < t.size(); ++n) w.Varint(static_cast<uint64_t>(std::max<int64_t>(0, t.baseline[n])));
    }
  }
}

std::string PageDataEncoder::Encode(std::string_view header_json, const std::vector<FlameTree>& flames) {
  ByteWriter body;
  body.Utf8(header_json);
  EncodeTracks(body);
  EncodeSlices(body);
  EncodeArgs(body);
  EncodeFlows(body);
  EncodeCounters(body);
  EncodeMemory(body);
  EncodeFlames(body, flames);

  ByteWriter out;
  out.Bytes("CPV1");
  out.Varint(1);
  out.Varint(strings_.size());
  for (std::string_view s : strings_) out.Varint(s.size());
  for (std::string_view s : strings_) out.Bytes(s);
  out.Bytes(body.str());
  return std::move(out.str());
}

}  // namespace cprof
