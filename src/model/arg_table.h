// Args: key/value pairs grouped in sets; each set's rows are contiguous in the arena.
//
//   ArgSetBuilder b = args.Begin();  b.Add(key, Value::Int(3));  ArgSetId id = b.Finish();
//   for (uint32_t r = args.begin(id); r < args.end(id); ++r) use(args.key_id[r], args.value[r]);
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "model/ids.h"
#include "model/value.h"

namespace cprof {

class ArgTable {
 public:
  // Rows, one per arg.
  std::vector<StringId> key_id;  // arg name
  std::vector<Value> value;      // arg value

  size_t size() const { return key_id.size(); }
  size_t set_count() const { return set_begin_.size(); }
  uint32_t begin(ArgSetId id) const { return set_begin_[Index(id)]; }
  uint32_t end(ArgSetId id) const {
    return Index(id) + 1 < set_begin_.size() ? set_begin_[Index(id) + 1]
                                             : static_cast<uint32_t>(key_id.size());
  }

  // Appends one arg to the set being built. Sets are built one at a time.
  void Add(StringId key, Value v) {
    key_id.push_back(key);
    value.push_back(v);
  }
  // Closes the set holding the rows added since the previous Finish(); kNoArgs if empty.
  ArgSetId Finish() {
    uint32_t start = set_begin_.empty() ? 0 : open_from_;
    if (key_id.size() == start) return kNoArgs;
    set_begin_.push_back(start);
    open_from_ = static_cast<uint32_t>(key_id.size());
    return ArgSetId{static_cast<uint32_t>(set_begin_.size() - 1)};
  }
  // Drops rows added since the last Finish().
  void Abandon() {
    key_id.resize(open_from_);
    value.resize(open_from_);
  }
  std::optional<Value> Find(ArgSetId id, StringId key) const {
    if (id == kNoArgs) return std::nullopt;
    for (uint32_t r = begin(id); r < end(id); ++r) {
      if (key_id[r] == key) return value[r];
    }
    return std::nullopt;
  }

 private:
  std::vector<uint32_t> set_begin_;
  uint32_t open_from_ = 0;
};

}  // namespace cprof
