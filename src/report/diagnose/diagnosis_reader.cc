// Reading a diagnosis report back (diagnosis_reader.h).
#include "report/diagnose/diagnosis_reader.h"

#include <sys/stat.h>

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <type_traits>

#include "report/diagnose/diagnosis_json.h"
#include "report/diagnose/diagnosis_yaml.h"

namespace cprof {
namespace {

template <typename T>
constexpr const char* KindName() {
  if constexpr (std::is_same_v<T, std::string>) return "text";
  else if constexpr (std::is_integral_v<T>) return "an integer";
  else return "a number";
}

// A field's value, or `fallback` when absent; a value of the wrong kind names the field ("line 26:
// bad conversion" did not).
template <typename T>
T Get(const YAML::Node& n, const char* key, T fallback) {
  const YAML::Node v = n[key];
  if (!v || !v.IsScalar()) return fallback;
  T out{};
  if (!YAML::convert<T>::decode(v, out))
    throw YAML::RepresentationException(v.Mark(),
                                        fmt::format("`{}` is '{}', not {}", key, v.Scalar(), KindName<T>()));
  return out;
}

std::string Str(const YAML::Node& n, const char* key) { return Get<std::string>(n, key, ""); }

// What kind of trace `text` is; empty when it may be a report. YAML forbids
// control characters, so any in the head means a binary file.
std::string TraceKindOf(std::string_view text) {
  const std::string_view head = text.substr(0, 4096);
  if (head.starts_with("\x1f\x8b")) return "a gzip'd file (a compressed trace)";
  if (head.starts_with(std::string_view("SQLite format 3\0", 16))) return "an SQLite database (a trace export)";
  for (unsigned char c : head) {
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r') {
      return head.front() == 0x0A ? "a trace (Perfetto protobuf)" : "a binary file (a trace?)";
    }
  }
  const size_t first = head.find_first_not_of(" \t\r\n\xef\xbb\xbf");
  if (first != std::string_view::npos && head[first] == '[') return "a trace (JSON event array)";
  // Kineto writes deviceProperties and more before its events: look at the whole text.
  if (text.find("\"traceEvents\"") != std::string_view::npos) return "a trace (Chrome/Kineto JSON)";
  return "";
}

Status ParseFinding(const YAML::Node& n, size_t index, const std::string& source, Finding* f) {
  if (!n.IsMap()) return InvalidInput("{}: finding {} is not a map", source, index + 1);
  const std::string category = Str(n, "category");
  if (category.empty()) return InvalidInput("{}: line {}: finding {} has no `category`", source, n.Mark().line + 1, index + 1);
  std::optional<Category> c = CategoryFromId(category);
  if (!c) return InvalidInput("{}: finding {}: unknown category '{}'", source, index + 1, category);
  f->category = *c;
  f->rule = Str(n, "rule");
  f->title = Str(n, "title");
  f->summary = Str(n, "summary");
  f->device = Str(n, "device");
  f->confidence = Get<double>(n, "confidence", 0);
  if (!(f->confidence >= 0 && f->confidence <= 1))
    return InvalidInput("{}: line {}: finding {}: confidence {} is not in [0, 1]", source, n["confidence"].Mark().line + 1,
                        index + 1, f->confidence);
  if (const YAML::Node t = n["confidence_terms"]; t && t.IsMap()) {
    f->confidence_terms.magnitude = Get<double>(t, "magnitude", 0);
    f->confidence_terms.support = Get<double>(t, "support", 0);
    f->confidence_terms.consistency = Get<double>(t, "consistency", 1);
    f->confidence_terms.specificity = Get<double>(t, "specificity", 1);
  }
  f->cost_per_step_ns = Get<int64_t>(n, "cost_per_step_ns", 0);
  f->cost_total_ns = Get<int64_t>(n, "cost_total_ns", 0);
  f->saving_ns = Get<int64_t>(n, "saving_ns", 0);
  f->saving_method = Str(n, "saving_method");
  if (const YAML::Node ev = n["evidence"]; ev && ev.IsMap()) {
    if (const YAML::Node ms = ev["metrics"]; ms && ms.IsSequence()) {
      for (const YAML::Node& m : ms) f->metrics.push_back({Str(m, "name"), Get<double>(m, "value", 0), Str(m, "unit")});
    }
    if (const YAML::Node es = ev["events"]; es && es.IsSequence()) {
      for (const YAML::Node& e : es) {
        EvidenceEvent x;
        x.name = Str(e, "name");
        x.track_path = Str(e, "track_path");
        x.ts_ns = Get<int64_t>(e, "ts_ns", 0);
        x.dur_ns = Get<int64_t>(e, "dur_ns", 0);
        if (e["slice_id"] && e["slice_id"].IsScalar()) x.slice_row = e["slice_id"].as<uint32_t>();
        x.note = Str(e, "note");
        f->events.push_back(std::move(x));
      }
    }
  }
  if (const YAML::Node ss = n["suggestions"]; ss && ss.IsSequence()) {
    for (const YAML::Node& s : ss) f->suggestions.push_back({Str(s, "text"), Str(s, "kind"), Str(s, "snippet")});
  }
  return Status::Ok();
}

}  // namespace

StatusOr<Diagnosis> ParseDiagnosis(const std::string& text, const std::string& source) {
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::Exception& e) {
    return InvalidInput("{}: not valid YAML or JSON: line {}, column {}: {}", source, e.mark.line + 1,
                        e.mark.column + 1, e.msg);
  }
  if (!root.IsMap()) return InvalidInput("{}: a diagnosis report is a map with `findings`", source);
  if (const std::string kind = Str(root, "kind"); !kind.empty() && kind != "diagnosis")
    return InvalidInput("{}: this is a '{}' document, not a diagnosis report", source, kind);
  // The newest layout this reader knows (cli_common.h's kSchemaVersion): a later one may mean its
  // fields differently.
  constexpr int64_t kNewestSchema = 1;
  if (const YAML::Node v = root["schema_version"]; v && v.IsScalar()) {
    int64_t version = 0;
    if (!YAML::convert<int64_t>::decode(v, version) || version < 1)
      return InvalidInput("{}: schema_version '{}' is not a positive integer", source, v.Scalar());
    if (version > kNewestSchema)
      return InvalidInput("{}: schema_version {} is newer than this cann-profiler reads ({}); run this version's "
                          "`diagnose` again, or update",
                          source, version, kNewestSchema);
  }
  Diagnosis d;
  try {
    d.trace_path = Str(root, "trace");
    d.source_format = Str(root, "source_format");
    d.torch_version = Str(root, "torch_version");
    if (const std::string h = Str(root, "content_hash"); !h.empty() && !ParseContentHash(h, &d.content_hash))
      return InvalidInput("{}: content_hash '{}' is not a hex number", source, h);
    const std::string device = Str(root, "device");
    d.device = device == "gpu" ? DeviceKind::kGpu : device == "npu" ? DeviceKind::kNpu : DeviceKind::kCpu;
    const std::string problem = Str(root, "problem");
    if (!problem.empty()) {
      std::optional<Problem> p = ProblemFromId(problem);
      if (!p) return InvalidInput("{}: unknown problem '{}'", source, problem);
      d.problem = *p;
    }
    d.threshold_text = Str(root, "threshold");
    d.span_ns = Get<int64_t>(root, "span_ns", 0);
    if (const YAML::Node s = root["steps"]; s && s.IsMap()) {
      d.step_count = Get<int64_t>(s, "count", 0);
      d.step_mean_ns = Get<int64_t>(s, "mean_ns", 0);
    }
    d.rules_run = Get<int64_t>(root, "rules_run", 0);
    if (const YAML::Node notes = root["notes"]; notes && notes.IsSequence())
      for (const YAML::Node& n : notes) d.notes.push_back(n.as<std::string>());
    const YAML::Node findings = root["findings"];
    if (!findings) return InvalidInput("{}: no `findings` list: not a diagnosis report", source);
    if (!findings.IsSequence() && !findings.IsNull()) return InvalidInput("{}: `findings` must be a list", source);
    if (findings.IsSequence()) {
      for (size_t i = 0; i < findings.size(); ++i) {
        Finding f;
        RETURN_IF_ERROR(ParseFinding(findings[i], i, source, &f));
        d.findings.push_back(std::move(f));
      }
    }
  } catch (const YAML::Exception& e) {
    return InvalidInput("{}: line {}: {}", source, e.mark.line + 1, e.msg);
  }
  return d;
}

StatusOr<std::string> ReadDiagnosisFile(const std::string& path) {
  struct stat st;
  if (stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    return InvalidInput("{} is a folder, not a diagnosis report; run `cann-profiler diagnose --trace {}` first", path,
                        path);
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return NotFound("{}: cannot open the diagnosis report: {}", path,
                    errno != 0 ? strerror(errno) : "unknown error");
  }
  std::stringstream buf;
  buf << in.rdbuf();
  std::string text = std::move(buf).str();
  if (std::string kind = TraceKindOf(text); !kind.empty()) {
    return InvalidInput("{} is {}, not a diagnosis report; run `cann-profiler diagnose --trace {}` first", path, kind,
                        path);
  }
  // A YAML report diagnose wrote ends with YAML's document end; one cut short still parses, as a
  // report with fewer findings or a finding without its savings. (Reports written before the
  // marker have another first line; hand-written ones none.)
  if (text.starts_with(kDiagnosisYamlHeader)) {
    std::string_view rest = text;
    while (!rest.empty() && std::isspace(static_cast<unsigned char>(rest.back()))) rest.remove_suffix(1);
    if (!rest.ends_with(std::string("\n") + std::string(kDiagnosisYamlEnd)))
      return InvalidInput("{}: the report is cut short (it ends without the line '{}' diagnose writes last): a full "
                          "disk or an interrupted copy? Run `cann-profiler diagnose` again",
                          path, kDiagnosisYamlEnd);
  }
  return text;
}

StatusOr<Diagnosis> LoadDiagnosis(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, ReadDiagnosisFile(path));
  return ParseDiagnosis(text, path);
}

}  // namespace cprof
