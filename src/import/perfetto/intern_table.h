// One interning table of one packet sequence (event names, categories, annotation keys or
// string values): iid -> StringId. Dense iids (ours are StringIds) index a vector; sparse ones
// fall back to a hash map.
#pragma once

#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "base/string_pool.h"

namespace cprof {

class InternTable {
 public:
  void Set(uint64_t iid, StringId id) {
    if (iid < kDenseLimit && iid < 2 * dense_.size() + 4096) {
      if (iid >= dense_.size()) dense_.resize(iid + 1, kUnset);
      dense_[iid] = id;
    } else {
      sparse_[iid] = id;
    }
  }
  std::optional<StringId> Get(uint64_t iid) const {
    if (iid < dense_.size()) {
      if (dense_[iid] != kUnset) return dense_[iid];
    }
    auto it = sparse_.find(iid);
    if (it == sparse_.end()) return std::nullopt;
    return it->second;
  }
  void Clear() {
    dense_.clear();
    sparse_.clear();
  }

 private:
  static constexpr uint64_t kDenseLimit = uint64_t{1} << 28;
  static constexpr StringId kUnset{UINT32_MAX};
  std::vector<StringId> dense_;
  std::unordered_map<uint64_t, StringId> sparse_;
};

}  // namespace cprof
