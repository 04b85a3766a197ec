// Open-addressing string interning over arena-stored bytes.
#include "base/string_pool.h"

#include <cstring>

namespace cprof {
namespace {

constexpr size_t kBlockBytes = 1 << 20;

// FNV-1a over 8-byte words with a final mix: fast enough for short names, good spread.
inline uint64_t HashBytes(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull ^ s.size();
  size_t i = 0;
  for (; i + 8 <= s.size(); i += 8) {
    uint64_t w;
    std::memcpy(&w, s.data() + i, 8);
    h = (h ^ w) * 0x100000001b3ull;
    h ^= h >> 29;
  }
  for (; i < s.size(); ++i) h = (h ^ static_cast<unsigned char>(s[i])) * 0x100000001b3ull;
  h ^= h >> 32;
  h *= 0x9e3779b97f4a7c15ull;
  return h ^ (h >> 29);
}

}  // namespace

StringPool::StringPool() {
  views_.push_back(std::string_view());
  hashes_.push_back(0);
  slots_.assign(1024, 0);
}

std::string_view StringPool::Store(std::string_view s) {
  if (s.size() > kBlockBytes / 4) {
    blocks_.emplace_back(new char[s.size()]);
    std::memcpy(blocks_.back().get(), s.data(), s.size());
    data_bytes_ += s.size();
    return std::string_view(blocks_.back().get(), s.size());
  }
  if (block_used_ + s.size() > block_size_) {
    blocks_.emplace_back(new char[kBlockBytes]);
    block_used_ = 0;
    block_size_ = kBlockBytes;
  }
  char* dst = blocks_.back().get() + block_used_;
  std::memcpy(dst, s.data(), s.size());
  block_used_ += s.size();
  data_bytes_ += s.size();
  return std::string_view(dst, s.size());
}

void StringPool::Grow() {
  std::vector<uint32_t> next(slots_.size() * 2, 0);
  size_t mask = next.size() - 1;
  for (uint32_t id = 1; id < views_.size(); ++id) {
    size_t i = hashes_[id] & mask;
    while (next[i] != 0) i = (i + 1) & mask;
    next[i] = id;
  }
  slots_.swap(next);
}

StringId StringPool::Intern(std::string_view s) {
  if (s.empty()) return kEmptyString;
  uint32_t h = static_cast<uint32_t>(HashBytes(s));
  size_t mask = slots_.size() - 1;
  size_t i = h & mask;
  while (uint32_t id = slots_[i]) {
    if (hashes_[id] == h && views_[id] == s) return StringId{id};
    i = (i + 1) & mask;
  }
  uint32_t id = static_cast<uint32_t>(views_.size());
  views_.push_back(Store(s));
  hashes_.push_back(h);
  slots_[i] = id;
  if (views_.size() * 2 > slots_.size()) Grow();
  return StringId{id};
}

std::optional<StringId> StringPool::Find(std::string_view s) const {
  if (s.empty()) return kEmptyString;
  uint32_t h = static_cast<uint32_t>(HashBytes(s));
  size_t mask = slots_.size() - 1;
  for (size_t i = h & mask; uint32_t id = slots_[i]; i = (i + 1) & mask) {
    if (hashes_[id] == h && views_[id] == s) return StringId{id};
  }
  return std::nullopt;
}

}  // namespace cprof
