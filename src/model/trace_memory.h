// How many bytes an imported Trace holds: what import memory limits (--max-memory) count.
//
//   if (TraceMemoryBytes(builder.trace()) > limit) return ResourceLimit(...);
//
// Counts the allocated capacity of every table's columns and of the args (not just the rows in
// use: a column that doubles holds the new capacity, and counting rows let a 128 MiB limit reach
// 380 MiB of RSS on 10^7 events), plus the string pool's data and its per-string index. Reserved
// capacity not yet written costs address space rather than memory, so the count errs high.
// O(number of columns): cheap enough for once per parsed batch or every few thousand rows.
// While one column reallocates, its old copy is held too, so RSS can briefly exceed the count.
#pragma once

#include <cstdint>

#include "model/trace.h"

namespace cprof {

uint64_t TraceMemoryBytes(const Trace& trace);

}  // namespace cprof
