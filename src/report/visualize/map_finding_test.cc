// Tests of reading diagnose findings and locating their evidence.
#include "report/visualize/map_finding.h"

#include <gtest/gtest.h>

#include "model/trace_builder.h"

namespace cprof {
namespace {

TEST(MapFindingTest, ParsesListsMapsAndMetrics) {
  auto f = ParseFindingsYaml(R"(
schema_version: 1
findings:
  - id: F1
    category: launch_overhead
    title: "Many tiny kernels"
    confidence: 0.82
    saving_ns: 1500000
    description: launches dominate
    evidence:
      kernels_per_step: 4000
      events:
        - {name: "aten::add", track: "proc / main", ts_ns: 120, dur_ns: 5, extra: x}
  - category: host_gap
    title: gap
    evidence:
      - {name: foo}
)", "r.yaml");
  ASSERT_TRUE(f.ok()) << f.status().message();
  ASSERT_EQ(f->size(), 2u);
  const MapFinding& a = (*f)[0];
  EXPECT_EQ(a.category, "launch_overhead");
  EXPECT_DOUBLE_EQ(*a.confidence, 0.82);
  EXPECT_EQ(*a.saving_ns, 1500000);
  ASSERT_EQ(a.evidence.size(), 2u);
  EXPECT_EQ(a.evidence[0].note, "kernels_per_step=4000");
  EXPECT_EQ(a.evidence[1].track_path, "proc / main");
  EXPECT_EQ(*a.evidence[1].ts_ns, 120);
  EXPECT_EQ(a.evidence[1].note, "extra=x");
  EXPECT_EQ((*f)[1].id, "F2");
  EXPECT_FALSE((*f)[1].confidence.has_value());
}

TEST(MapFindingTest, BadYamlIsInvalidInput) {
  auto f = ParseFindingsYaml("findings: [ {title: x", "bad.yaml");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(f.status().message().find("bad.yaml"), std::string::npos);
  EXPECT_FALSE(ParseFindingsYaml("findings: 3", "x").ok());
  EXPECT_EQ(LoadFindingsFile("/nonexistent/r.yaml").status().code(), StatusCode::kNotFound);
}

EvidenceRef Ref(std::string name, std::string track, std::optional<int64_t> ts) {
  EvidenceRef e;
  e.name = std::move(name);
  e.track_path = std::move(track);
  e.ts_ns = ts;
  return e;
}

TEST(MapFindingTest, ResolvesByTrackPathStartAndName) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId t1 = b.ThreadTrack(1, 1);
  TrackId t2 = b.ThreadTrack(1, 2);
  StringId add = b.Intern("aten::add");
  b.AddSlice({.ts_ns = 1000, .dur_ns = 10, .track_id = t1, .name_id = add});
  b.AddSlice({.ts_ns = 2000, .dur_ns = 10, .track_id = t1, .name_id = add});
  b.AddSlice({.ts_ns = 2000, .dur_ns = 10, .track_id = t2, .name_id = add});
  ASSERT_TRUE(b.Finalize().ok());
  EvidenceResolver r(trace);

  EvidenceRef e = Ref("aten::add", trace.TrackPath(t2), 2000);
  ResolvedEvidence got = r.Resolve(e);
  ASSERT_TRUE(got.slice_row.has_value());
  EXPECT_EQ(trace.slices.track_id[*got.slice_row], t2);

  e = Ref("aten::add", trace.TrackPath(t1), 1005);  // covered
  got = r.Resolve(e);
  ASSERT_TRUE(got.slice_row.has_value());
  EXPECT_EQ(trace.slices.ts_ns[*got.slice_row], 1000);

  e = Ref("aten::add", "", 1);  // an offset from the trace start, any track
  got = r.Resolve(e);
  ASSERT_TRUE(got.slice_row.has_value());
  EXPECT_EQ(trace.slices.ts_ns[*got.slice_row], 1000);
  EXPECT_EQ(*got.ts_ns, 1001);

  e = Ref("nope", trace.TrackPath(t1), 1500);
  got = r.Resolve(e);
  EXPECT_FALSE(got.slice_row.has_value());
  EXPECT_EQ(got.track, t1);
}

}  // namespace
}  // namespace cprof
