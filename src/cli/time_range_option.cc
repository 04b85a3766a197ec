// --time_range parsing and its check against the trace (time_range_option.h).
#include "cli/time_range_option.h"

namespace cprof::cli {

StatusOr<std::optional<TimeRange>> ParseTimeRangeOption(const std::string& text, std::string_view flag) {
  if (text.empty()) return std::optional<TimeRange>{};
  StatusOr<TimeRange> range = ParseTimeRange(text);
  if (!range.ok()) return range.status().WithContext(std::string(flag));
  if (range->start && range->end && *range->end <= *range->start)
    return InvalidInput("{} {}: the end must be after the start", flag, text);
  return std::optional<TimeRange>(*range);
}

StatusOr<TimeWindow> WindowInTrace(const Trace& trace, const std::optional<TimeRange>& range, const std::string& text,
                                   std::string_view flag) {
  if (!range) return TimeWindow{};
  const TimeNs span = trace.end_ns - trace.start_ns;
  if (range->start && span > 0 && *range->start >= span)
    return InvalidInput("{} {}: starts after the trace ends (the trace spans {})", flag, text, FormatDuration(span));
  return TimeWindow::FromRange(trace, *range);
}

}  // namespace cprof::cli
