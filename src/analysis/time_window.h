// A window of absolute trace time that analyses restrict themselves to (`--time_range A:B`).
//
//   ASSIGN_OR_RETURN(TimeRange r, ParseTimeRange("1s:2s"));
//   TimeWindow w = TimeWindow::FromRange(trace, r);   // [trace.start_ns + 1s, trace.start_ns + 2s)
//   if (w.Contains(ts)) ...
//
// Half-open [start_ns, end_ns); the default window is unbounded.
#pragma once

#include <cstdint>
#include <limits>

#include "base/time_units.h"
#include "model/trace.h"

namespace cprof {

struct TimeWindow {
  int64_t start_ns = std::numeric_limits<int64_t>::min();
  int64_t end_ns = std::numeric_limits<int64_t>::max();

  bool Contains(int64_t ts) const { return ts >= start_ns && ts < end_ns; }
  bool bounded() const {
    return start_ns != std::numeric_limits<int64_t>::min() || end_ns != std::numeric_limits<int64_t>::max();
  }

  // A range relative to the trace's start (open ends stay open).
  static TimeWindow FromRange(const Trace& trace, const TimeRange& range) {
    TimeWindow w;
    if (range.start) w.start_ns = trace.start_ns + *range.start;
    if (range.end) w.end_ns = trace.start_ns + *range.end;
    return w;
  }
};

}  // namespace cprof
