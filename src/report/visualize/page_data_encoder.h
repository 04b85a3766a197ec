// Encodes a trace (restricted to a time window) into the performance map's data block: one
// string table, varint-packed columns, times as ns deltas from the trace start. The layout is
// documented once, in web/src/data/trace_data.ts, which decodes it.
//
//   PageDataEncoder enc(trace, window_start_ns, window_end_ns);
//   int64_t i = enc.SliceIndex(row);                 // the page's index of a trace slice
//   std::string bytes = enc.Encode(header_json, flames);
//
// Slices that overlap the window are kept whole; counters keep the last value before the window;
// flows are kept when both ends are kept; only arg sets of kept slices are written.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "export/flame/flame_tree.h"
#include "model/trace.h"
#include "report/visualize/byte_writer.h"

namespace cprof {

class PageDataEncoder {
 public:
  // Keeps a reference to `trace`, which must outlive the encoder. The window is absolute ns.
  PageDataEncoder(const Trace& trace, int64_t start_ns, int64_t end_ns);

  // The page's index of trace slice `row`, or -1 if the slice is outside the window.
  int64_t SliceIndex(uint32_t row) const {
    return row < slice_index_.size() && slice_index_[row] != UINT32_MAX ? static_cast<int64_t>(slice_index_[row]) : -1;
  }
  size_t slice_count() const { return kept_; }

  // The raw (uncompressed) data block. `header_json` is embedded as is.
  std::string Encode(std::string_view header_json, const std::vector<FlameTree>& flames);

 private:
  uint32_t Str(StringId id);
  uint32_t Str(std::string_view s);
  void EncodeTracks(ByteWriter& w);
  void EncodeSlices(ByteWriter& w);
  void EncodeArgs(ByteWriter& w);
  void EncodeFlows(ByteWriter& w);
  void EncodeCounters(ByteWriter& w);
  void EncodeMemory(ByteWriter& w);
  void EncodeFlames(ByteWriter& w, const std::vector<FlameTree>& flames);

  const Trace& trace_;
  int64_t start_ns_;
  int64_t end_ns_;
  std::vector<uint32_t> slice_index_;  // trace row -> page index, UINT32_MAX if dropped
  std::vector<uint32_t> kept_rows_;    // page index -> trace row
  size_t kept_ = 0;
  std::vector<uint32_t> arg_set_index_;  // trace arg set -> page set + 1 (0 = not yet used)
  std::vector<uint32_t> arg_sets_;       // page set -> trace arg set
  // The page's string table: trace strings on first use, then strings from elsewhere.
  std::vector<uint32_t> trace_string_index_;  // StringId -> page index + 1 (0 = not yet used)
  std::unordered_map<std::string, uint32_t> other_strings_;
  std::vector<std::string_view> strings_;
  std::deque<std::string> owned_;  // storage of strings not from the trace (stable addresses)
};

}  // namespace cprof
