// Declares a columnar table once from an X-macro column list, with one line of documentation
// per column; the struct, its Row type, Append, Permute and the column catalogue all come from
// that single declaration, so exporters and docs read the same list.
//
//   #define MY_COLUMNS(X) X(int64_t, ts_ns, 0, "start time, ns") X(uint32_t, track, 0, "track")
//   CPROF_TABLE(MyTable, MY_COLUMNS);
//   MyTable t; t.Append({.ts_ns = 5, .track = 1}); t.ts_ns[0] == 5;
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <type_traits>
#include <vector>

namespace cprof {

struct ColumnInfo {
  const char* name;
  const char* doc;
};

}  // namespace cprof

#define CPROF_TABLE_COL_VEC(type, name, def, doc) std::vector<type> name;
#define CPROF_TABLE_ROW_FIELD(type, name, def, doc) type name = def;
#define CPROF_TABLE_PUSH(type, name, def, doc) name.push_back(row.name);
#define CPROF_TABLE_RESERVE(type, name, def, doc) name.reserve(n);
#define CPROF_TABLE_PERMUTE(type, name, def, doc) ::cprof::internal::ApplyPermutation(name, order, scratch);
#define CPROF_TABLE_INFO(type, name, def, doc) ::cprof::ColumnInfo{#name, doc},
#define CPROF_TABLE_GET(type, name, def, doc) r.name = name[i];

#define CPROF_TABLE(Name, COLUMNS)                                                    \
  struct Name {                                                                       \
    struct Row {                                                                      \
      COLUMNS(CPROF_TABLE_ROW_FIELD)                                                  \
    };                                                                                \
    COLUMNS(CPROF_TABLE_COL_VEC)                                                      \
    size_t size() const { return size_; }                                             \
    uint32_t Append(const Row& row) {                                                 \
      COLUMNS(CPROF_TABLE_PUSH)                                                       \
      return static_cast<uint32_t>(size_++);                                          \
    }                                                                                 \
    Row Get(size_t i) const {                                                         \
      Row r;                                                                          \
      COLUMNS(CPROF_TABLE_GET)                                                        \
      return r;                                                                       \
    }                                                                                 \
    void Reserve(size_t n) { COLUMNS(CPROF_TABLE_RESERVE) }                           \
    /* Reorders rows so that new row i is old row order[i]. */                        \
    void Permute(const std::vector<uint32_t>& order) {                                \
      ::cprof::internal::PermuteScratch scratch;                                      \
      COLUMNS(CPROF_TABLE_PERMUTE)                                                    \
    }                                                                                 \
    static constexpr ::cprof::ColumnInfo kColumns[] = {COLUMNS(CPROF_TABLE_INFO)};    \
                                                                                      \
   private:                                                                           \
    size_t size_ = 0;                                                                 \
  }

namespace cprof::internal {

// One buffer shared by the columns of a Permute(): gathering into it and copying back touches no
// fresh memory per column (page faults dominate a permutation of a large table otherwise).
struct PermuteScratch {
  std::unique_ptr<std::byte[]> data;
  size_t bytes = 0;
};

template <typename T>
void ApplyPermutation(std::vector<T>& column, const std::vector<uint32_t>& order, PermuteScratch& scratch) {
  static_assert(std::is_trivially_copyable_v<T>);
  const size_t bytes = order.size() * sizeof(T);
  if (scratch.bytes < bytes) {
    scratch.data.reset(new std::byte[bytes]);
    scratch.bytes = bytes;
  }
  T* out = reinterpret_cast<T*>(scratch.data.get());
  for (size_t i = 0; i < order.size(); ++i) out[i] = column[order[i]];
  column.resize(order.size());
  if (bytes) std::memcpy(column.data(), out, bytes);
}

template <typename T>
void ApplyPermutation(std::vector<T>& column, const std::vector<uint32_t>& order) {
  PermuteScratch scratch;
  ApplyPermutation(column, order, scratch);
}

}  // namespace cprof::internal
