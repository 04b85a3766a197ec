// Interns strings once; everything else refers to them by a 32-bit StringId.
//
//   StringPool pool;
//   StringId id = pool.Intern("aten::mm");
//   std::string_view s = pool.Get(id);       // "aten::mm", valid for the pool's lifetime
//
// Id 0 is always the empty string. Not thread-safe: importers intern from one thread (parse
// threads hand string_views to the builder thread).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>
#include <vector>

namespace cprof {

enum class StringId : uint32_t {};
inline constexpr StringId kEmptyString{0};
inline constexpr uint32_t Index(StringId id) { return static_cast<uint32_t>(id); }

class StringPool {
 public:
  StringPool();
  StringPool(StringPool&&) noexcept = default;
  StringPool& operator=(StringPool&&) noexcept = default;

  StringId Intern(std::string_view s);
  // The id of `s` if it was interned before; never adds.
  std::optional<StringId> Find(std::string_view s) const;
  std::string_view Get(StringId id) const { return views_[Index(id)]; }
  size_t size() const { return views_.size(); }
  // Bytes held by string data (not counting the index).
  size_t data_bytes() const { return data_bytes_; }

 private:
  std::string_view Store(std::string_view s);
  void Grow();

  // Open addressing over `views_` indices; slot value 0 means empty (id 0 is "" and never hashed).
  std::vector<uint32_t> slots_;
  std::vector<uint32_t> hashes_;  // per id, the low 32 bits of its hash
  std::vector<std::string_view> views_;
  std::vector<std::unique_ptr<char[]>> blocks_;
  size_t block_used_ = 0;
  size_t block_size_ = 0;
  size_t data_bytes_ = 0;
};

}  // namespace cprof
