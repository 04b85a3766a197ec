// A Trace as an SQLite database, one SQL table per trace table, for ad-hoc questions in SQL
// (`cann-profiler query`, or the sqlite3 shell on a `convert run.pb run.sqlite` output):
//
//   SELECT name, COUNT(*), SUM(dur_ns) / 1e6 AS ms FROM slice GROUP BY name ORDER BY ms DESC LIMIT 10;
//
// Tables and columns are those of model/tables.h (track, slice, flow, counter, memory_event,
// sample, stack, frame, metadata) plus arg (arg_set_id, key, value) and import_stat (non-zero
// counts). Interned strings are stored as text under the column's name without `_id`
// (name_id -> name); id columns are integers, NULL for none; track, slice, stack and frame have
// `id` = the row's id in the trace; slice.correlation_id is NULL for none (-1 in the model); enums
// are stored by name (track.kind 'gpu_stream'); 64-bit addresses keep their bits as a signed
// integer (those above 2^63 read negative; printf('%x', address) shows them in hex). The table
// `cprof_schema` holds one line of documentation per column, from the same declarations.
#pragma once

#include <string>

#include "base/status.h"
#include "model/trace.h"

struct sqlite3;

namespace cprof {

// Creates the tables in `db` (which must not have them yet) and fills them, in one transaction.
Status FillSqlite(const Trace& trace, sqlite3* db);

// Writes `path` atomically: a temporary database beside it, renamed over it when complete.
Status WriteSqlite(const Trace& trace, const std::string& path);

// True when `db` holds a database FillSqlite wrote (it has the cprof_schema table).
bool IsCprofSqlite(sqlite3* db);

}  // namespace cprof
