// Test helper: compares two Traces table by table, every column, strings by content (not by
// id), arg sets by their key/value rows. Returns "" when equal, else the first difference.
//
//   EXPECT_EQ(DiffTraces(original, reimported), "");
//
// Header-only and for tests: exporters' round-trip tests include it.
#pragma once

#include <cmath>
#include <cstring>
#include <string>

#include <fmt/format.h>

#include "model/trace.h"

namespace cprof::testing {

inline std::string ValueText(const Trace& t, const Value& v) {
  switch (v.type) {
    case Value::Type::kNull: return "null";
    case Value::Type::kInt: return fmt::format("int {}", v.i);
    case Value::Type::kUint: return fmt::format("uint {}", v.u);
    case Value::Type::kDouble: {
      uint64_t bits;
      std::memcpy(&bits, &v.d, sizeof bits);
      return fmt::format("double {} ({:#x})", v.d, bits);
    }
    case Value::Type::kString: return fmt::format("string \"{}\"", t.Str(v.s));
    case Value::Type::kBool: return v.b ? "bool true" : "bool false";
  }
  return "?";
}

inline std::string ArgsText(const Trace& t, ArgSetId set) {
  if (set == kNoArgs) return "{}";
  std::string out = "{";
  for (uint32_t r = t.args.begin(set); r < t.args.end(set); ++r) {
    out += fmt::format("{}{}: {}", r == t.args.begin(set) ? "" : ", ", t.Str(t.args.key_id[r]),
                       ValueText(t, t.args.value[r]));
  }
  return out + "}";
}

inline std::string DiffTraces(const Trace& a, const Trace& b) {
  std::string diff;
  // `what` is formatted only for the first difference (formatting every cell is slow).
  auto check = [&](bool same, auto&& what) {
    if (!same && diff.empty()) diff = what();
    return same;
  };
#define CPROF_DIFF_SIZE(table) \
  if (!check(a.table.size() == b.table.size(), [&] { return fmt::format(#table ": {} rows vs {}", a.table.size(), b.table.size()); })) return diff;
#define CPROF_DIFF(table, i, expr_a, expr_b) \
  check((expr_a) == (expr_b), [&] { return fmt::format(#table " row {}: " #expr_a ": {} vs {}", i, expr_a, expr_b); })
#define CPROF_DIFF_COL(table, col) CPROF_DIFF(table, i, a.table.col[i], b.table.col[i])
#define CPROF_DIFF_ID(table, col) CPROF_DIFF(table, i, Index(a.table.col[i]), Index(b.table.col[i]))
#define CPROF_DIFF_STR(table, col) CPROF_DIFF(table, i, a.Str(a.table.col[i]), b.Str(b.table.col[i]))

  CPROF_DIFF_SIZE(tracks);
  for (size_t i = 0; i < a.tracks.size() && diff.empty(); ++i) {
    CPROF_DIFF_ID(tracks, parent_id);
    CPROF_DIFF(tracks, i, static_cast<int>(a.tracks.kind[i]), static_cast<int>(b.tracks.kind[i]));
    CPROF_DIFF_STR(tracks, name_id);
    CPROF_DIFF_COL(tracks, pid);
    CPROF_DIFF_COL(tracks, tid);
    CPROF_DIFF_COL(tracks, device);
    CPROF_DIFF_COL(tracks, stream);
    CPROF_DIFF_COL(tracks, rank);
    CPROF_DIFF_COL(tracks, sort_index);
    CPROF_DIFF_STR(tracks, unit_id);
  }
  CPROF_DIFF_SIZE(slices);
  for (size_t i = 0; i < a.slices.size() && diff.empty(); ++i) {
    CPROF_DIFF_COL(slices, ts_ns);
    CPROF_DIFF_COL(slices, dur_ns);
    CPROF_DIFF_ID(slices, track_id);
    CPROF_DIFF_STR(slices, name_id);
    CPROF_DIFF_STR(slices, category_id);
    CPROF_DIFF_COL(slices, depth);
    CPROF_DIFF_ID(slices, parent_id);
    CPROF_DIFF(slices, i, ArgsText(a, a.slices.arg_set_id[i]), ArgsText(b, b.slices.arg_set_id[i]));
    CPROF_DIFF_COL(slices, correlation_id);
  }
  CPROF_DIFF_SIZE(flows);
  for (size_t i = 0; i < a.flows.size() && diff.empty(); ++i) {
    CPROF_DIFF_ID(flows, out_slice_id);
    CPROF_DIFF_ID(flows, in_slice_id);
    CPROF_DIFF(flows, i, static_cast<int>(a.flows.kind[i]), static_cast<int>(b.flows.kind[i]));
    CPROF_DIFF_STR(flows, name_id);
  }
  CPROF_DIFF_SIZE(counters);
  for (size_t i = 0; i < a.counters.size() && diff.empty(); ++i) {
    CPROF_DIFF_ID(counters, track_id);
    CPROF_DIFF_COL(counters, ts_ns);
    CPROF_DIFF(counters, i, ValueText(a, Value::Double(a.counters.value[i])), ValueText(b, Value::Double(b.counters.value[i])));
  }
  CPROF_DIFF_SIZE(memory_events);
  for (size_t i = 0; i < a.memory_events.size() && diff.empty(); ++i) {
    CPROF_DIFF_COL(memory_events, ts_ns);
    CPROF_DIFF_ID(memory_events, track_id);
    CPROF_DIFF_COL(memory_events, device);
    CPROF_DIFF_COL(memory_events, address);
    CPROF_DIFF_COL(memory_events, bytes);
    CPROF_DIFF_COL(memory_events, total_allocated);
    CPROF_DIFF_COL(memory_events, total_reserved);
  }
  CPROF_DIFF_SIZE(samples);
  for (size_t i = 0; i < a.samples.size() && diff.empty(); ++i) {
    CPROF_DIFF_COL(samples, ts_ns);
    CPROF_DIFF_ID(samples, track_id);
    CPROF_DIFF_ID(samples, stack_id);
    CPROF_DIFF_COL(samples, weight);
  }
  CPROF_DIFF_SIZE(stacks);
  for (size_t i = 0; i < a.stacks.size() && diff.empty(); ++i) {
    CPROF_DIFF_ID(stacks, parent_id);
    CPROF_DIFF_ID(stacks, frame_id);
  }
  CPROF_DIFF_SIZE(frames);
  for (size_t i = 0; i < a.frames.size() && diff.empty(); ++i) {
    CPROF_DIFF_STR(frames, function_id);
    CPROF_DIFF_STR(frames, module_id);
    CPROF_DIFF_COL(frames, address);
    CPROF_DIFF_STR(frames, file_id);
    CPROF_DIFF_COL(frames, line);
  }
  CPROF_DIFF_SIZE(metadata);
  for (size_t i = 0; i < a.metadata.size() && diff.empty(); ++i) {
    CPROF_DIFF_STR(metadata, key_id);
    CPROF_DIFF(metadata, i, ValueText(a, a.metadata.value[i]), ValueText(b, b.metadata.value[i]));
  }
  for (size_t s = 0; s < ImportStats::kCount && diff.empty(); ++s) {
    const auto stat = static_cast<ImportStat>(s);
    check(a.stats.Get(stat) == b.stats.Get(stat), [&] {
      return fmt::format("import stat {}: {} vs {}", GetImportStatInfo(stat).name, a.stats.Get(stat), b.stats.Get(stat));
    });
  }
  check(a.start_ns == b.start_ns && a.end_ns == b.end_ns,
        [&] { return fmt::format("time span [{}, {}] vs [{}, {}]", a.start_ns, a.end_ns, b.start_ns, b.end_ns); });
  check(a.track_slice_begin == b.track_slice_begin, [] { return std::string("track_slice_begin differs"); });
#undef CPROF_DIFF_SIZE
#undef CPROF_DIFF
#undef CPROF_DIFF_COL
#undef CPROF_DIFF_ID
#undef CPROF_DIFF_STR
  return diff;
}

}  // namespace cprof::testing
