// Finds the device task a row of a side table describes: kernel_details.csv and
// communication.json name a task and give its start, and the slice another reader made for it
// (trace_view.json's Ascend Hardware / HCCL rows) gets the row's columns as args. Matching is by
// name and nearest start within a tolerance (the tables round differently: HCCL op starts in
// kernel_details.csv are 1 ns off the trace), each slice claimed at most once.
//
//   DeviceTaskIndex index(builder.trace());
//   SliceId s = index.Claim(builder.trace().strings.Find("Conv2D1"), ts_ns, 1000);
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "model/trace.h"

namespace cprof {

class DeviceTaskIndex {
 public:
  // Indexes the slices on device tracks (NPU/GPU streams, communication) of a trace being built.
  explicit DeviceTaskIndex(const Trace& trace);

  // The unclaimed slice named `name` whose start is nearest `ts_ns`, within `tolerance_ns`;
  // marks it claimed. kNoSlice if none.
  SliceId Claim(std::optional<StringId> name, int64_t ts_ns, int64_t tolerance_ns);
  // Adds a slice made after indexing (so a later table can match it).
  void Add(StringId name, int64_t ts_ns, SliceId slice);
  size_t size() const { return size_; }

 private:
  struct Entry {
    int64_t ts;
    uint32_t row;
    bool claimed;
  };
  std::unordered_map<uint32_t, std::vector<Entry>> by_name_;  // sorted by ts
  size_t size_ = 0;
};

}  // namespace cprof
