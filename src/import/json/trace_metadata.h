// What a JSON trace says about itself: the top-level members of the object form (Kineto's
// deviceProperties, distributedInfo, baseTimeNanoseconds, ...), the dialect it is written in
// ("kineto", "pytorch_legacy", "torch_npu", "chrome") from the hints events give, and the rank.
// Write() turns it into model metadata.
//
//   TraceMetadata meta("trace.json");
//   RETURN_IF_ERROR(meta.AddMember(member));     // per top-level member
//   meta.SawCategory("cpu_op");                  // per event, cheap once decided
//   meta.Write(&builder);                        // source_format, rank, world_size, ...
//
// Builder thread only.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "import/json/event_splitter.h"
#include "import/json/top_level_value.h"
#include "model/trace_builder.h"

namespace cprof::json {

class TraceMetadata {
 public:
  explicit TraceMetadata(std::string path) : path_(std::move(path)) {}

  // Parses one member. Errors name the file, the member's byte offset and key.
  Status AddMember(const TopLevelMember& member, bool compressed);

  void SetObjectForm(bool object_form) { object_form_ = object_form; }
  void SawCategory(std::string_view cat);
  void SawProcessName(std::string_view name);
  void SawFlowCategory(std::string_view cat);
  void SawLegacyPid() { legacy_ = true; }
  // The rank of a torch_npu folder (profiler_info_N.json), used when the trace has none.
  void SetRankHint(int64_t rank) { rank_hint_ = rank; }

  bool torch_npu() const { return npu_; }
  int64_t base_time_ns() const { return base_time_ns_; }
  int64_t rank() const { return rank_ >= 0 ? rank_ : rank_hint_; }
  std::string_view SourceFormat() const;

  void Write(TraceBuilder* builder) const;

 private:
  std::string path_;
  std::vector<std::pair<std::string, TopLevelValue>> members_;
  bool object_form_ = false;
  bool kineto_keys_ = false;
  bool kineto_ = false;
  bool npu_ = false;
  bool legacy_ = false;
  int64_t base_time_ns_ = 0;
  int64_t rank_ = -1;
  int64_t rank_hint_ = -1;
  int64_t world_size_ = -1;
};

}  // namespace cprof::json
