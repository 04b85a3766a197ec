// Slice and counter events of the Perfetto export, in file order.
#include "export/perfetto/track_events.h"

#include <span>
#include <vector>

namespace cprof {
namespace {

// Flow ids per slice row as two CSR lists: flows starting at the row and flows ending there.
struct FlowIds {
  std::vector<uint32_t> start_begin, end_begin;  // size rows + 1 (empty if there are no flows)
  std::vector<uint64_t> start_ids, end_ids;

  std::span<const uint64_t> Starts(uint32_t row) const {
    if (start_begin.empty()) return {};
    return {start_ids.data() + start_begin[row], start_ids.data() + start_begin[row + 1]};
  }
  std::span<const uint64_t> Ends(uint32_t row) const {
    if (end_begin.empty()) return {};
    return {end_ids.data() + end_begin[row], end_ids.data() + end_begin[row + 1]};
  }
};

FlowIds BuildFlowIds(const Trace& trace) {
  FlowIds ids;
  const FlowTable& f = trace.flows;
  const SliceTable& s = trace.slices;
  const size_t rows = s.size();
  if (f.size() == 0) return ids;
  // trace_processor parses events by (ts, file order), and the file has BEGINs in row order:
  // the flow starts at whichever endpoint comes first in that order.
  auto endpoints = [&](size_t i, uint32_t* first, uint32_t* second) {
    const uint32_t out = Index(f.out_slice_id[i]), in = Index(f.in_slice_id[i]);
    if (out >= rows || in >= rows || out == in) return false;  // a self-flow has no Perfetto form
    const bool out_first = s.ts_ns[out] < s.ts_ns[in] || (s.ts_ns[out] == s.ts_ns[in] && out < in);
    *first = out_first ? out : in;
    *second = out_first ? in : out;
    return true;
  };
  ids.start_begin.assign(rows + 1, 0);
  ids.end_begin.assign(rows + 1, 0);
  uint32_t a, b;
  for (size_t i = 0; i < f.size(); ++i) {
    if (!endpoints(i, &a, &b)) continue;
    ++ids.start_begin[a + 1];
    ++ids.end_begin[b + 1];
  }
  for (size_t r = 0; r < rows; ++r) {
    ids.start_begin[r + 1] += ids.start_begin[r];
    ids.end_begin[r + 1] += ids.end_begin[r];
  }
  ids.start_ids.resize(ids.start_begin[rows]);
  ids.end_ids.resize(ids.end_begin[rows]);
  std::vector<uint32_t> start_fill(ids.start_begin.begin(), ids.start_begin.end() - 1);
  std::vector<uint32_t> end_fill(ids.end_begin.begin(), ids.end_begin.end() - 1);
  for (size_t i = 0; i < f.size(); ++i) {
    if (!endpoints(i, &a, &b)) continue;
    ids.start_ids[start_fill[a]++] = i + 1;  // flow ids are nonzero
    ids.end_ids[end_fill[b]++] = i + 1;
  }
  return ids;
}

}  // namespace

Status WriteTrackEvents(const Trace& trace, const TrackLayout& layout, TrackEventWriter* writer) {
  const uint32_t tracks = static_cast<uint32_t>(trace.tracks.size());
  const FlowIds flows = BuildFlowIds(trace);

  // Counter rows per track, keeping table order within a track (a stable counting sort).
  const CounterTable& c = trace.counters;
  std::vector<uint32_t> counter_begin(tracks + 1, 0), counter_rows(c.size());
  for (size_t i = 0; i < c.size(); ++i) {
    if (Index(c.track_id[i]) >= tracks) {
      return Internal("counter row {}: track {} is outside the track table ({} rows)", i, Index(c.track_id[i]),
                      tracks);
    }
    ++counter_begin[Index(c.track_id[i]) + 1];
  }
  for (uint32_t t = 0; t < tracks; ++t) counter_begin[t + 1] += counter_begin[t];
  {
    std::vector<uint32_t> fill(counter_begin.begin(), counter_begin.end() - 1);
    for (size_t i = 0; i < c.size(); ++i) counter_rows[fill[Index(c.track_id[i])]++] = static_cast<uint32_t>(i);
  }

  std::vector<std::vector<uint32_t>> open;  // per lane: open slice rows, innermost last
  for (uint32_t t = 0; t < tracks; ++t) {
    auto [b, e] = trace.track_slices(TrackId{t});
    open.assign(layout.LaneCount(t), {});
    for (uint32_t i = b; i < e; ++i) {
      const int64_t ts = trace.slices.ts_ns[i];
      for (auto& stack : open) {
        while (!stack.empty() && TrackLayout::NestingEnd(trace, stack.back()) <= ts) {
          RETURN_IF_ERROR(writer->End(stack.back(), layout.SliceUuid(stack.back())));
          stack.pop_back();
        }
      }
      RETURN_IF_ERROR(writer->Begin(i, layout.SliceUuid(i), flows.Starts(i), flows.Ends(i)));
      open[layout.SliceLane(i)].push_back(i);
    }
    for (auto& stack : open) {
      for (; !stack.empty(); stack.pop_back()) {
        // A slice that never ended (dur -1) gets no END: Perfetto shows it as "did not end".
        if (trace.slices.dur_ns[stack.back()] >= 0) {
          RETURN_IF_ERROR(writer->End(stack.back(), layout.SliceUuid(stack.back())));
        }
      }
    }
    const uint64_t counter_uuid = layout.CounterUuid(t);
    for (uint32_t k = counter_begin[t]; k < counter_begin[t + 1]; ++k) {
      const uint32_t r = counter_rows[k];
      RETURN_IF_ERROR(writer->Counter(counter_uuid, c.ts_ns[r], c.value[r]));
    }
  }
  return Status::Ok();
}

}  // namespace cprof
