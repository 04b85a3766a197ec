// --time_range as the analysis commands take it ("START:END" from the trace's start, either end
// open): parsed before the trace is imported, so a typo fails at once, then checked against the
// trace, so a window that lies past its end is an error instead of an empty report.
//
//   ASSIGN_OR_RETURN(std::optional<TimeRange> r, ParseTimeRangeOption(o.time_range));
//   ASSIGN_OR_RETURN(Trace trace, LoadTrace(...));
//   ASSIGN_OR_RETURN(TimeWindow w, WindowInTrace(trace, r, o.time_range));
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "analysis/time_window.h"
#include "base/status.h"
#include "base/time_units.h"
#include "model/trace.h"

namespace cprof::cli {

// nullopt for an empty `text`; kInvalidInput naming `flag` for bad syntax or an end before the start.
StatusOr<std::optional<TimeRange>> ParseTimeRangeOption(const std::string& text,
                                                        std::string_view flag = "--time_range");

// The window `range` selects in `trace` (unbounded for nullopt); kInvalidInput when it starts at or
// after the trace's end, saying how long the trace is.
StatusOr<TimeWindow> WindowInTrace(const Trace& trace, const std::optional<TimeRange>& range, const std::string& text,
                                   std::string_view flag = "--time_range");

}  // namespace cprof::cli
