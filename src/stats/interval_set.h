// A set of time as sorted, disjoint half-open intervals [start, end) in integer ns, with the
// operations the time breakdowns need: union, difference, clipping and total length.
//
//   IntervalSet busy = IntervalSet::Union({{0, 10}, {10, 20}, {30, 40}});  // {[0,20), [30,40)}
//   IntervalSet idle = IntervalSet::Union({{0, 40}}).Minus(busy);          // {[20,30)}
//   idle.Length() == 10;
//
// Union merges intervals that only touch (start == previous end), as TraceLens does; zero-length
// intervals are kept as points while merging (they can join two neighbours) but add no length.
#pragma once

#include <cstdint>
#include <vector>

namespace cprof {

struct Interval {
  int64_t start = 0;
  int64_t end = 0;  // >= start
  bool operator==(const Interval&) const = default;
};

class IntervalSet {
 public:
  IntervalSet() = default;

  // The union of `intervals` (any order, may overlap). Takes the vector by value and sorts it.
  static IntervalSet Union(std::vector<Interval> intervals);

  // This minus `other`.
  IntervalSet Minus(const IntervalSet& other) const;
  // This intersected with [start, end).
  IntervalSet Clip(int64_t start, int64_t end) const;
  // Sum of the lengths.
  int64_t Length() const;

  bool empty() const { return parts_.empty(); }
  // Earliest start and latest end; 0 when empty.
  int64_t first_start() const { return parts_.empty() ? 0 : parts_.front().start; }
  int64_t last_end() const { return parts_.empty() ? 0 : parts_.back().end; }
  const std::vector<Interval>& parts() const { return parts_; }

 private:
  std::vector<Interval> parts_;  // sorted, disjoint, not touching
};

}  // namespace cprof
