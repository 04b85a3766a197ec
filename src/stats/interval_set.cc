// Interval set algebra over sorted, disjoint intervals.
#include "stats/interval_set.h"

#include <algorithm>

namespace cprof {

IntervalSet IntervalSet::Union(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  IntervalSet out;
  for (const Interval& iv : intervals) {
    if (!out.parts_.empty() && iv.start <= out.parts_.back().end) {
      out.parts_.back().end = std::max(out.parts_.back().end, iv.end);
    } else {
      out.parts_.push_back(iv);
    }
  }
  return out;
}

IntervalSet IntervalSet::Minus(const IntervalSet& other) const {
  IntervalSet out;
  const std::vector<Interval>& b = other.parts_;
  size_t j = 0;
  for (const Interval& a : parts_) {
    while (j < b.size() && b[j].end <= a.start) ++j;
    int64_t cur = a.start;
    for (size_t k = j; k < b.size() && b[k].start < a.end; ++k) {
      if (b[k].start > cur) out.parts_.push_back({cur, b[k].start});
      cur = std::max(cur, b[k].end);
      if (cur >= a.end) break;
    }
    if (cur < a.end) out.parts_.push_back({cur, a.end});
  }
  return out;
}

IntervalSet IntervalSet::Clip(int64_t start, int64_t end) const {
  IntervalSet out;
  if (end <= start) return out;
  auto it = std::lower_bound(parts_.begin(), parts_.end(), start,
                             [](const Interval& iv, int64_t t) { return iv.end <= t; });
  for (; it != parts_.end() && it->start < end; ++it) {
    int64_t s = std::max(it->start, start);
    int64_t e = std::min(it->end, end);
    if (e > s) out.parts_.push_back({s, e});
  }
  return out;
}

int64_t IntervalSet::Length() const {
  int64_t n = 0;
  for (const Interval& iv : parts_) n += iv.end - iv.start;
  return n;
}

}  // namespace cprof
