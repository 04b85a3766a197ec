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
#define CPROF_TABLE_PERMUTE(type, name, def, doc) ::cprof::internal::ApplyPermutation(name, order);
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
    void Permute(const std::vector<uint32_t>& order) { COLUMNS(CPROF_TABLE_PERMUTE) } \
    static constexpr ::cprof::ColumnInfo kColumns[] = {COLUMNS(CPROF_TABLE_INFO)};    \
                                                                                      \
   private:                                                                           \
    size_t size_ = 0;                                                                 \
  }

namespace cprof::internal {

template <typename T>
void ApplyPermutation(std::vector<T>& column, const std::vector<uint32_t>& order) {
  std::vector<T> out;
  out.reserve(order.size());
  for (uint32_t i : order) out.push_back(column[i]);
  column.swap(out);
}

}  // namespace cprof::internal
