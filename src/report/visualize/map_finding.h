// A finding as the performance map shows it (from `diagnose`'s report), and where its evidence
// is in the trace.
//
//   ASSIGN_OR_RETURN(std::vector<MapFinding> f, LoadFindingsFile("root_cause_report.yaml"));
//   ResolvedEvidence r = ResolveEvidence(trace, f[0].evidence[0]);   // track and slice, if found
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/status.h"
#include "model/trace.h"

namespace cprof {

// One event a finding cites: by track path (Trace::TrackPath), start time and name, as the
// diagnose report references events so that the reference survives re-import.
struct EvidenceRef {
  std::string name;
  std::string track_path;
  std::optional<int64_t> ts_ns;   // on the trace's clock; values before the trace start are offsets from it
  std::optional<int64_t> dur_ns;
  std::optional<uint32_t> slice_row;  // a row id, when the report has one for this very trace
  std::string note;                   // metric values and anything else, as text
};

struct MapFinding {
  std::string id;
  std::string category;
  std::string title;
  std::string description;
  std::optional<double> confidence;  // [0, 1]
  std::optional<int64_t> saving_ns;
  std::vector<EvidenceRef> evidence;
};

// Reads findings from a diagnose report (YAML, or JSON, which is YAML too). Accepted shapes: a
// map with a `findings` list (or a bare list); per finding `id`, `category`, `title`,
// `confidence`, `saving_ns` (or `estimated_saving_ns`), `description` (or `summary`), and
// `evidence`: a list of events, or a map whose `events` (or `top_events`) list holds them and
// whose other scalar entries (or a `metrics` list of {name, value, unit}) are metrics. Per event `name`, `track` (or `track_path`), `ts_ns`
// (or `start_ns`), `dur_ns`, `slice_id`. Unknown keys become the event's note. kInvalidInput
// names the file and the problem.
StatusOr<std::vector<MapFinding>> LoadFindingsFile(const std::string& path);
StatusOr<std::vector<MapFinding>> ParseFindingsYaml(const std::string& text, const std::string& source);

struct ResolvedEvidence {
  std::optional<TrackId> track;
  std::optional<uint32_t> slice_row;
  std::optional<int64_t> ts_ns;  // absolute, on the trace's clock
};

// Finds the track by its path (exact, else by the last path component) and the slice by name
// and start (exact start, else the one covering the time, else the nearest start).
class EvidenceResolver {
 public:
  explicit EvidenceResolver(const Trace& trace);
  ResolvedEvidence Resolve(const EvidenceRef& e) const;

 private:
  const Trace& trace_;
  std::vector<std::string> paths_;
};

}  // namespace cprof
