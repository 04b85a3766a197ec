// Reading diagnose findings and locating their evidence in a trace.
#include "report/visualize/map_finding.h"

#include <cstdlib>

#include <yaml-cpp/yaml.h>

#include "report/diagnose/diagnosis_reader.h"

namespace cprof {
namespace {

std::string Scalar(const YAML::Node& n, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (n[k] && n[k].IsScalar()) return n[k].as<std::string>();
  }
  return {};
}

std::optional<int64_t> Int(const YAML::Node& n, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (!n[k] || !n[k].IsScalar()) continue;
    const std::string text = n[k].as<std::string>();
    char* end = nullptr;
    long long v = std::strtoll(text.c_str(), &end, 10);
    if (end && *end == '\0' && !text.empty()) return v;
    double d = std::strtod(text.c_str(), &end);  // 1.5e6 and the like
    if (end && *end == '\0' && !text.empty()) return static_cast<int64_t>(d);
  }
  return std::nullopt;
}

std::optional<double> Double(const YAML::Node& n, std::initializer_list<const char*> keys) {
  for (const char* k : keys) {
    if (!n[k] || !n[k].IsScalar()) continue;
    const std::string text = n[k].as<std::string>();
    char* end = nullptr;
    double d = std::strtod(text.c_str(), &end);
    if (end && *end == '\0' && !text.empty()) return d;
  }
  return std::nullopt;
}

bool Known(const std::string& key) {
  static const char* kKnown[] = {"name", "track", "track_path", "ts_ns", "start_ns", "dur_ns", "slice_id"};
  for (const char* k : kKnown) {
    if (key == k) return true;
  }
  return false;
}

EvidenceRef ParseEvent(const YAML::Node& n) {
  EvidenceRef e;
  if (n.IsScalar()) {
    e.note = n.as<std::string>();
    return e;
  }
  if (!n.IsMap()) return e;
  e.name = Scalar(n, {"name"});
  e.track_path = Scalar(n, {"track", "track_path"});
  e.ts_ns = Int(n, {"ts_ns", "start_ns"});
  e.dur_ns = Int(n, {"dur_ns"});
  if (auto id = Int(n, {"slice_id"}); id && *id >= 0 && *id < UINT32_MAX) e.slice_row = static_cast<uint32_t>(*id);
  for (const auto& kv : n) {
    std::string key = kv.first.as<std::string>();
    if (Known(key) || !kv.second.IsScalar()) continue;
    if (!e.note.empty()) e.note += ", ";
    e.note += key + "=" + kv.second.as<std::string>();
  }
  return e;
}

void ParseEvidence(const YAML::Node& n, MapFinding* f) {
  if (!n) return;
  if (n.IsSequence()) {
    for (const auto& item : n) f->evidence.push_back(ParseEvent(item));
    return;
  }
  if (!n.IsMap()) return;
  std::string metrics;
  for (const auto& kv : n) {
    std::string key = kv.first.as<std::string>();
    if ((key == "events" || key == "top_events") && kv.second.IsSequence()) {
      for (const auto& item : kv.second) f->evidence.push_back(ParseEvent(item));
    } else if (key == "metrics" && kv.second.IsSequence()) {  // diagnose's [{name, value, unit}]
      for (const auto& m : kv.second) {
        if (!m.IsMap() || !m["name"] || !m["value"]) continue;
        if (!metrics.empty()) metrics += ", ";
        metrics += m["name"].as<std::string>() + "=" + m["value"].as<std::string>();
        if (m["unit"] && m["unit"].IsScalar() && !m["unit"].as<std::string>().empty())
          metrics += " " + m["unit"].as<std::string>();
      }
    } else if (kv.second.IsScalar()) {
      if (!metrics.empty()) metrics += ", ";
      metrics += key + "=" + kv.second.as<std::string>();
    }
  }
  if (!metrics.empty()) {
    EvidenceRef m;
    m.note = metrics;
    f->evidence.insert(f->evidence.begin(), m);
  }
}

}  // namespace

StatusOr<std::vector<MapFinding>> ParseFindingsYaml(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return InvalidInput("{}: not valid YAML: line {}, column {}: {}", source, e.mark.line + 1, e.mark.column + 1, e.msg);
  }
  YAML::Node list = root.IsMap() ? root["findings"] : root;
  if (!list || list.IsNull()) return std::vector<MapFinding>{};
  if (!list.IsSequence()) return InvalidInput("{}: `findings` must be a list", source);
  std::vector<MapFinding> out;
  try {
    size_t index = 0;
    for (const auto& n : list) {
      if (!n.IsMap()) return InvalidInput("{}: finding {} is not a map", source, index);
      MapFinding f;
      f.id = Scalar(n, {"id"});
      if (f.id.empty()) f.id = "F" + std::to_string(index + 1);
      f.category = Scalar(n, {"category"});
      f.title = Scalar(n, {"title"});
      f.description = Scalar(n, {"description", "summary"});
      f.confidence = Double(n, {"confidence"});
      f.saving_ns = Int(n, {"saving_ns", "estimated_saving_ns"});
      ParseEvidence(n["evidence"], &f);
      out.push_back(std::move(f));
      ++index;
    }
  } catch (const YAML::Exception& e) {
    return InvalidInput("{}: line {}: {}", source, e.mark.line + 1, e.msg);
  }
  return out;
}

StatusOr<std::vector<MapFinding>> LoadFindingsFile(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadDiagnosisFile(path));
  return ParseFindingsYaml(text, path);
}

EvidenceResolver::EvidenceResolver(const Trace& trace) : trace_(trace) {
  paths_.reserve(trace.tracks.size());
  for (uint32_t t = 0; t < trace.tracks.size(); ++t) paths_.push_back(trace.TrackPath(TrackId{t}));
}

ResolvedEvidence EvidenceResolver::Resolve(const EvidenceRef& e) const {
  ResolvedEvidence r;
  const SliceTable& s = trace_.slices;
  if (e.ts_ns) r.ts_ns = *e.ts_ns < trace_.start_ns ? trace_.start_ns + *e.ts_ns : *e.ts_ns;
  if (e.slice_row && *e.slice_row < s.size() &&
      (e.name.empty() || trace_.Str(s.name_id[*e.slice_row]) == e.name)) {
    r.slice_row = *e.slice_row;
    r.track = s.track_id[*e.slice_row];
    if (!r.ts_ns) r.ts_ns = s.ts_ns[*e.slice_row];
    return r;
  }
  if (!e.track_path.empty()) {
    for (uint32_t t = 0; t < paths_.size() && !r.track; ++t) {
      if (paths_[t] == e.track_path) r.track = TrackId{t};
    }
    if (!r.track) {  // the last component alone (a report written with a shorter path)
      std::string_view want = e.track_path;
      if (size_t k = want.rfind(" / "); k != std::string_view::npos) want = want.substr(k + 3);
      for (uint32_t t = 0; t < paths_.size() && !r.track; ++t) {
        std::string_view p = paths_[t];
        if (p == want || (p.size() > want.size() + 3 && p.substr(p.size() - want.size() - 3) == " / " + std::string(want))) {
          r.track = TrackId{t};
        }
      }
    }
  }
  if (e.name.empty()) return r;
  std::optional<StringId> name = trace_.strings.Find(e.name);
  if (!name) return r;
  uint32_t begin = 0, end = static_cast<uint32_t>(s.size());
  if (r.track) std::tie(begin, end) = trace_.track_slices(*r.track);
  // Best: exact start; then a slice covering the time; then the nearest start.
  int64_t best_rank = INT64_MAX;
  for (uint32_t row = begin; row < end; ++row) {
    if (s.name_id[row] != *name) continue;
    int64_t rank;
    if (!r.ts_ns) {
      rank = 0;
    } else if (s.ts_ns[row] == *r.ts_ns) {
      rank = -2;
    } else if (s.ts_ns[row] <= *r.ts_ns && trace_.slice_end(row) >= *r.ts_ns) {
      rank = -1;
    } else {
      rank = std::llabs(s.ts_ns[row] - *r.ts_ns);
    }
    if (rank < best_rank) {
      best_rank = rank;
      r.slice_row = row;
      if (rank == -2 || !r.ts_ns) break;
    }
  }
  if (r.slice_row) {
    r.track = s.track_id[*r.slice_row];
    if (!r.ts_ns) r.ts_ns = s.ts_ns[*r.slice_row];
  }
  return r;
}

}  // namespace cprof
