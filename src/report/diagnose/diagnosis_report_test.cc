// The diagnosis report writers and reader: YAML and JSON share one schema, read back whole by
// LoadDiagnosis and by the performance map's LoadFindingsFile; Markdown shows every finding.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <yaml-cpp/yaml.h>

#include "report/diagnose/diagnosis_json.h"
#include "report/diagnose/diagnosis_markdown.h"
#include "report/diagnose/diagnosis_reader.h"
#include "report/diagnose/diagnosis_yaml.h"
#include "report/visualize/map_finding.h"

namespace cprof {
namespace {

namespace fs = std::filesystem;

Diagnosis Sample() {
  Diagnosis d;
  d.trace_path = "run/trace.json.gz";
  d.source_format = "kineto";
  d.content_hash = 0x00ab12cd34ef5678ULL;  // leading zeros must survive
  d.device = DeviceKind::kGpu;
  d.problem = Problem::kHighP99Latency;
  d.threshold_text = "p99>2.0s";
  d.span_ns = 123456789;
  d.step_count = 4;
  d.step_mean_ns = 30000000;
  d.rules_run = 8;
  d.notes = {"no memory events: memory rules skipped"};
  Finding f;
  f.category = Category::kLaunchOverhead;
  f.rule = "launch_overhead";
  f.title = "4,210 kernels under 10 us: 61% of device time is launch gaps";
  f.summary = "Many tiny kernels.\nThe GPU waits for the host between them.";
  f.device = "gpu";
  f.confidence_terms = {.magnitude = 0.75, .support = 0.9, .consistency = 1, .specificity = 0.8};
  f.confidence = ComputeConfidence(f.confidence_terms);
  f.cost_per_step_ns = 2500000;
  f.cost_total_ns = 10000000;
  f.saving_ns = 7000000;
  f.saving_method = "launch gaps between back-to-back kernels, assuming CUDA graphs remove 70% of them";
  f.metrics = {{"short_kernel_fraction", 0.81, "ratio"}, {"kernels_per_step", 1052.5, "count"}};
  EvidenceEvent e;
  e.name = "void at::native::vectorized_elementwise_kernel<4>";
  e.track_path = "process 0 / stream 7";
  e.ts_ns = 1700000000123456789;
  e.dur_ns = 2300;
  e.slice_row = 42;
  e.note = "longest launch gap before it: 48 us";
  f.events.push_back(e);
  f.suggestions.push_back({"Capture the step in a CUDA graph.", "code",
                           "g = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    out = model(x)"});
  f.suggestions.push_back({"true", "env", "TORCH_CUDNN_V8_API_ENABLED=1"});
  d.findings.push_back(f);
  Finding g;
  g.category = Category::kDeviceIdle;
  g.rule = "device_idle";
  g.title = "device idle 35% of steps";
  g.confidence = 0.4;
  g.saving_ns = 100;
  d.findings.push_back(g);
  return d;
}

std::string WriteTemp(const std::string& name, const std::string& text) {
  fs::path p = fs::temp_directory_path() / ("cprof_diag_" + std::to_string(::getpid()) + "_" + name);
  std::ofstream(p) << text;
  return p.string();
}

void ExpectSame(const Diagnosis& a, const Diagnosis& b) {
  EXPECT_EQ(a.trace_path, b.trace_path);
  EXPECT_EQ(a.content_hash, b.content_hash);
  EXPECT_EQ(a.device, b.device);
  EXPECT_EQ(a.problem, b.problem);
  EXPECT_EQ(a.threshold_text, b.threshold_text);
  EXPECT_EQ(a.span_ns, b.span_ns);
  EXPECT_EQ(a.step_count, b.step_count);
  EXPECT_EQ(a.step_mean_ns, b.step_mean_ns);
  EXPECT_EQ(a.notes, b.notes);
  ASSERT_EQ(a.findings.size(), b.findings.size());
  for (size_t i = 0; i < a.findings.size(); ++i) {
    const Finding& x = a.findings[i];
    const Finding& y = b.findings[i];
    EXPECT_EQ(x.category, y.category);
    EXPECT_EQ(x.rule, y.rule);
    EXPECT_EQ(x.title, y.title);
    EXPECT_EQ(x.summary, y.summary);
    EXPECT_DOUBLE_EQ(x.confidence, y.confidence);
    EXPECT_DOUBLE_EQ(x.confidence_terms.specificity, y.confidence_terms.specificity);
    EXPECT_EQ(x.cost_per_step_ns, y.cost_per_step_ns);
    EXPECT_EQ(x.cost_total_ns, y.cost_total_ns);
    EXPECT_EQ(x.saving_ns, y.saving_ns);
    EXPECT_EQ(x.saving_method, y.saving_method);
    ASSERT_EQ(x.metrics.size(), y.metrics.size());
    for (size_t k = 0; k < x.metrics.size(); ++k) {
      EXPECT_EQ(x.metrics[k].name, y.metrics[k].name);
      EXPECT_DOUBLE_EQ(x.metrics[k].value, y.metrics[k].value);
      EXPECT_EQ(x.metrics[k].unit, y.metrics[k].unit);
    }
    ASSERT_EQ(x.events.size(), y.events.size());
    for (size_t k = 0; k < x.events.size(); ++k) {
      EXPECT_EQ(x.events[k].name, y.events[k].name);
      EXPECT_EQ(x.events[k].track_path, y.events[k].track_path);
      EXPECT_EQ(x.events[k].ts_ns, y.events[k].ts_ns);
      EXPECT_EQ(x.events[k].dur_ns, y.events[k].dur_ns);
      EXPECT_EQ(x.events[k].slice_row, y.events[k].slice_row);
      EXPECT_EQ(x.events[k].note, y.events[k].note);
    }
    ASSERT_EQ(x.suggestions.size(), y.suggestions.size());
    for (size_t k = 0; k < x.suggestions.size(); ++k) {
      EXPECT_EQ(x.suggestions[k].text, y.suggestions[k].text);
      EXPECT_EQ(x.suggestions[k].kind, y.suggestions[k].kind);
      EXPECT_EQ(x.suggestions[k].snippet, y.suggestions[k].snippet);
    }
  }
}

TEST(DiagnosisReportTest, YamlRoundTripsThroughLoadDiagnosis) {
  const Diagnosis d = Sample();
  const std::string path = WriteTemp("r.yaml", DiagnosisToYaml(d, 1));
  StatusOr<Diagnosis> back = LoadDiagnosis(path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSame(d, *back);
  fs::remove(path);
}

TEST(DiagnosisReportTest, JsonRoundTripsAndHasTheDocumentedFields) {
  const Diagnosis d = Sample();
  nlohmann::ordered_json doc = DiagnosisToJson(d, 7);
  EXPECT_EQ(doc["schema_version"], 7);
  EXPECT_EQ(doc["content_hash"], "0x00ab12cd34ef5678");
  EXPECT_EQ(doc["device"], "gpu");
  EXPECT_EQ(doc["problem"], "high_p99_latency");
  EXPECT_EQ(doc["steps"]["count"], 4);
  const auto& f = doc["findings"][0];
  for (const char* key : {"category", "title", "summary", "confidence", "confidence_terms", "saving_ns",
                          "saving_method", "cost_per_step_ns", "cost_total_ns", "evidence", "suggestions"})
    EXPECT_TRUE(f.contains(key)) << key;
  EXPECT_EQ(f["category"], "launch_overhead");
  EXPECT_EQ(f["rank"], 1);
  EXPECT_EQ(f["evidence"]["events"][0]["ts_ns"].get<int64_t>(), 1700000000123456789);
  EXPECT_EQ(f["evidence"]["metrics"][1]["name"], "kernels_per_step");
  // The reader refuses a schema newer than its own (1): read back as one this version wrote.
  StatusOr<Diagnosis> newer = ParseDiagnosis(doc.dump(), "r.json");
  ASSERT_FALSE(newer.ok());
  EXPECT_EQ(newer.status().message().rfind("r.json: schema_version 7 is newer than this cann-profiler reads (1)", 0),
            0u);
  doc["schema_version"] = 1;
  StatusOr<Diagnosis> back = ParseDiagnosis(doc.dump(), "r.json");
  ASSERT_TRUE(back.ok()) << back.status().message();
  ExpectSame(d, *back);
}

TEST(DiagnosisReportTest, PerformanceMapLoadsTheYaml) {
  const Diagnosis d = Sample();
  const std::string path = WriteTemp("map.yaml", DiagnosisToYaml(d, 1));
  StatusOr<std::vector<MapFinding>> f = LoadFindingsFile(path);
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->size(), 2u);
  const MapFinding& a = (*f)[0];
  EXPECT_EQ(a.id, "F1");
  EXPECT_EQ(a.category, "launch_overhead");
  EXPECT_EQ(a.title, d.findings[0].title);
  EXPECT_NEAR(*a.confidence, d.findings[0].confidence, 1e-12);
  EXPECT_EQ(*a.saving_ns, 7000000);
  EXPECT_EQ(a.description, d.findings[0].summary);
  ASSERT_EQ(a.evidence.size(), 2u);  // the metrics note, then the event
  EXPECT_NE(a.evidence[0].note.find("short_kernel_fraction=0.81 ratio"), std::string::npos) << a.evidence[0].note;
  EXPECT_EQ(a.evidence[1].name, d.findings[0].events[0].name);
  EXPECT_EQ(a.evidence[1].track_path, "process 0 / stream 7");
  EXPECT_EQ(*a.evidence[1].ts_ns, 1700000000123456789);
  EXPECT_EQ(*a.evidence[1].slice_row, 42u);
  fs::remove(path);
}

TEST(DiagnosisReportTest, YamlQuotesStringsThatLookLikeOtherTypes) {
  const std::string text = DiagnosisToYaml(Sample(), 1);
  YAML::Node root = YAML::Load(text);
  EXPECT_EQ(root["content_hash"].Tag(), "!");  // quoted: stays a string for any YAML reader
  EXPECT_EQ(root["findings"][0]["suggestions"][1]["text"].Tag(), "!");
  EXPECT_EQ(root["findings"][0]["suggestions"][0]["snippet"].as<std::string>(),
            "g = torch.cuda.CUDAGraph()\nwith torch.cuda.graph(g):\n    out = model(x)");
}

TEST(DiagnosisReportTest, MarkdownListsEveryFinding) {
  const std::string md = DiagnosisToMarkdown(Sample());
  EXPECT_NE(md.find("| 1 | `launch_overhead` |"), std::string::npos) << md;
  EXPECT_NE(md.find("## 2. device idle 35% of steps"), std::string::npos);
  EXPECT_NE(md.find("**Estimated saving: 7 ms.**"), std::string::npos);
  EXPECT_NE(md.find("with torch.cuda.graph(g):"), std::string::npos);
  Diagnosis empty;
  empty.rules_run = 3;
  EXPECT_NE(DiagnosisToMarkdown(empty).find("No findings"), std::string::npos);
}

TEST(DiagnosisReportTest, BadReportsNameTheFile) {
  auto bad = ParseDiagnosis("findings: [ {category: x", "bad.yaml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("bad.yaml"), std::string::npos);
  auto unknown = ParseDiagnosis("findings:\n  - category: no_such\n", "u.yaml");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.status().message().find("no_such"), std::string::npos);
  EXPECT_FALSE(ParseDiagnosis("kind: summary\nfindings: []\n", "s.json").ok());
  EXPECT_FALSE(ParseDiagnosis("schema_version: 1\n", "n.yaml").ok());
  EXPECT_EQ(LoadDiagnosis("/nonexistent/r.yaml").status().code(), StatusCode::kNotFound);
}

// A field of the wrong kind names itself ("line 3: bad conversion" did not); a finding without a
// category says so (it read "unknown category ''"); a confidence outside [0, 1] is refused.
TEST(DiagnosisReportTest, BadFieldsAreNamed) {
  auto message = [](const std::string& yaml) {
    StatusOr<Diagnosis> d = ParseDiagnosis(yaml, "r.yaml");
    return d.ok() ? std::string("accepted") : d.status().message();
  };
  EXPECT_EQ(message("findings:\n  - category: host_gap\n    confidence: high\n"),
            "r.yaml: line 3: `confidence` is 'high', not a number");
  EXPECT_EQ(message("findings:\n  - title: t\n    confidence: 0.5\n"), "r.yaml: line 2: finding 1 has no `category`");
  EXPECT_EQ(message("findings:\n  - category: host_gap\n    confidence: 7\n"),
            "r.yaml: line 3: finding 1: confidence 7 is not in [0, 1]");
  EXPECT_EQ(message("span_ns: 2.5s\nfindings: []\n"), "r.yaml: line 1: `span_ns` is '2.5s', not an integer");
  EXPECT_EQ(message("findings:\n  - category: host_gap\n    confidence: 0.7\n"), "accepted");
}

}  // namespace
}  // namespace cprof
