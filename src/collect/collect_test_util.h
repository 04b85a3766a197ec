// Helpers for the collect tests: run a real program under Collection and query the trace.
#pragma once

#include <algorithm>
#include <string>
#include <string_view>
#include <vector>

#include "collect/collector.h"
#include "model/trace.h"

namespace cprof::testing {

inline std::string TestdataBin(const std::string& name) { return std::string(CPROF_BINARY_DIR) + "/collect_testdata/" + name; }
inline std::string TestdataSrc(const std::string& name) {
  return std::string(CPROF_SOURCE_DIR) + "/src/collect/testdata/" + name;
}

struct Collected {
  Status status;
  Trace trace;
  int exit_code = -1;
  std::vector<std::string> warnings;
};

inline CollectOptions TestOptions(std::vector<std::string> argv) {
  CollectOptions o;
  o.argv = std::move(argv);
  o.runtime_dir = std::string(CPROF_BINARY_DIR) + "/runtime";
  o.proc_interval_ns = 50 * kNsPerMs;
  o.sampling.cpu_hz = 199;  // twice the default: more samples per test second, same code paths
  return o;
}

inline Collected RunCollect(CollectOptions o) {
  Collected c;
  std::vector<std::string>* w = &c.warnings;
  o.warn = [w](std::string_view m) { w->emplace_back(m); };
  StatusOr<std::unique_ptr<Collection>> coll = Collection::Start(o);
  if (!coll.ok()) {
    c.status = coll.status();
    return c;
  }
  StatusOr<Trace> t = (*coll)->Run();
  c.exit_code = (*coll)->WaitForTarget();
  if (!t.ok()) {
    c.status = t.status();
    return c;
  }
  c.trace = std::move(*t);
  return c;
}

// Rows of slices named `name`.
inline std::vector<uint32_t> SlicesNamed(const Trace& t, std::string_view name) {
  std::vector<uint32_t> rows;
  for (uint32_t i = 0; i < t.slices.size(); ++i) {
    if (t.Str(t.slices.name_id[i]) == name) rows.push_back(i);
  }
  return rows;
}

// Names of the counter tracks.
inline std::vector<std::string> CounterTrackNames(const Trace& t) {
  std::vector<std::string> names;
  for (uint32_t i = 0; i < t.tracks.size(); ++i) {
    if (t.tracks.kind[i] == TrackKind::kCounter) names.emplace_back(t.Str(t.tracks.name_id[i]));
  }
  return names;
}

inline bool Contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// Function names of a sample's stack, innermost first.
inline std::vector<std::string> SampleStack(const Trace& t, uint32_t sample) {
  std::vector<std::string> out;
  StackId s = t.samples.stack_id[sample];
  while (s != kNoStack) {
    out.emplace_back(t.Str(t.frames.function_id[Index(t.stacks.frame_id[Index(s)])]));
    s = t.stacks.parent_id[Index(s)];
  }
  return out;
}

}  // namespace cprof::testing
