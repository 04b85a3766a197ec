// Tests of the performance map page: structure, safety of embedded strings, the data block.
#include "report/visualize/performance_map.h"

#include <zlib.h>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "model/trace_builder.h"
#include "report/visualize/web_bundle.h"

namespace cprof {
namespace {

std::string Base64Decode(std::string_view in) {
  auto val = [](char c) -> int {
    if (c >= 'A' && c <= 'Z') return c - 'A';
    if (c >= 'a' && c <= 'z') return c - 'a' + 26;
    if (c >= '0' && c <= '9') return c - '0' + 52;
    if (c == '+') return 62;
    if (c == '/') return 63;
    return -1;
  };
  std::string out;
  uint32_t acc = 0;
  int bits = 0;
  for (char c : in) {
    int v = val(c);
    if (v < 0) continue;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((acc >> bits) & 0xff));
    }
  }
  return out;
}

std::string Gunzip(const std::string& in) {
  z_stream zs{};
  EXPECT_EQ(inflateInit2(&zs, 15 + 16), Z_OK);
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  zs.avail_in = static_cast<uInt>(in.size());
  std::string out;
  char buf[65536];
  int rc;
  do {
    zs.next_out = reinterpret_cast<Bytef*>(buf);
    zs.avail_out = sizeof(buf);
    rc = inflate(&zs, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - zs.avail_out);
  } while (rc == Z_OK);
  inflateEnd(&zs);
  EXPECT_EQ(rc, Z_STREAM_END);
  return out;
}

uint64_t Varint(const std::string& s, size_t* pos) {
  uint64_t v = 0;
  for (int shift = 0;; shift += 7) {
    uint8_t b = static_cast<uint8_t>(s.at((*pos)++));
    v |= static_cast<uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
}

struct Decoded {
  std::vector<std::string> strings;
  nlohmann::json header;
};

// Decodes the page's data block up to the header (the browser tests cover the rest).
Decoded DecodePage(const std::string& html) {
  const std::string open = "<script id=\"cprof-data\" type=\"application/octet-stream\">";
  size_t a = html.find(open);
  EXPECT_NE(a, std::string::npos);
  a += open.size();
  size_t b = html.find("</script>", a);
  std::string raw = Gunzip(Base64Decode(html.substr(a, b - a)));
  EXPECT_EQ(raw.substr(0, 4), "CPV1");
  size_t pos = 4;
  EXPECT_EQ(Varint(raw, &pos), 1u);
  Decoded d;
  uint64_t n = Varint(raw, &pos);
  std::vector<uint64_t> lens;
  for (uint64_t i = 0; i < n; ++i) lens.push_back(Varint(raw, &pos));
  for (uint64_t len : lens) {
    d.strings.push_back(raw.substr(pos, len));
    pos += len;
  }
  uint64_t hlen = Varint(raw, &pos);
  d.header = nlohmann::json::parse(raw.substr(pos, hlen));
  return d;
}

size_t Count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t p = hay.find(needle); p != std::string::npos; p = hay.find(needle, p + 1)) ++n;
  return n;
}

Trace SmallTrace(std::string_view evil) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId t = b.ThreadTrack(10, 11);
  TrackId gpu = b.StreamTrack(TrackKind::kGpuStream, 0, 7);
  for (int step = 0; step < 3; ++step) {
    int64_t base = 1'000'000 + step * 1000;
    b.AddSlice({.ts_ns = base, .dur_ns = 900, .track_id = t, .name_id = b.Intern("ProfilerStep#" + std::to_string(step))});
    b.args().Add(b.Intern("Input Dims"), Value::String(b.Intern("[[2, 3]]")));
    b.args().Add(b.Intern(evil), Value::String(b.Intern(evil)));
    b.args().Add(b.Intern("big"), Value::Uint(UINT64_MAX));
    ArgSetId args = b.args().Finish();
    b.AddSlice({.ts_ns = base + 100, .dur_ns = 300, .track_id = t, .name_id = b.Intern(evil),
                .category_id = b.Intern("cpu_op"), .arg_set_id = args});
    b.AddSlice({.ts_ns = base + 200, .dur_ns = 400, .track_id = gpu, .name_id = b.Intern("gemm"),
                .category_id = b.Intern("kernel")});
  }
  b.SetMetadataString(meta::kSourcePath, std::string("/tmp/") + std::string(evil) + ".json");
  EXPECT_TRUE(b.Finalize().ok());
  return trace;
}

TEST(PerformanceMapTest, BuildsASelfContainedPage) {
  if (!GetWebBundle().available) GTEST_SKIP() << "built without the web front end";
  Trace trace = SmallTrace("aten::mm");
  PerformanceMapStats stats;
  auto html = RenderPerformanceMap(trace, {}, &stats);
  ASSERT_TRUE(html.ok()) << html.status().message();
  EXPECT_NE(html->find("Content-Security-Policy"), std::string::npos);
  EXPECT_NE(html->find("default-src 'none'"), std::string::npos);
  EXPECT_EQ(html->find("http://"), html->find("http://www.w3.org"));  // only SVG namespaces, no URLs to load
  EXPECT_EQ(Count(*html, "<script"), 2u);
  EXPECT_EQ(Count(*html, "</script"), 2u);
  EXPECT_EQ(stats.slices, 9u);
  EXPECT_EQ(stats.html_bytes, html->size());

  Decoded d = DecodePage(*html);
  EXPECT_EQ(d.strings[0], "");
  EXPECT_EQ(d.header["range_start_ns"], 0);
  EXPECT_EQ(d.header["range_end_ns"], 2900);
  EXPECT_EQ(d.header["views"].size(), PerformanceMapViews().size());
  EXPECT_EQ(d.header["steps"].size(), 3u);
  EXPECT_EQ(d.header["start_ns"], "1000000");
  ASSERT_TRUE(d.header["step_breakdown"].is_object());
  EXPECT_EQ(d.header["step_breakdown"]["steps"].size(), 3u);
  EXPECT_FALSE(d.header["op_stats"].empty());
}

TEST(PerformanceMapTest, TraceStringsCannotBreakOutOfTheData) {
  if (!GetWebBundle().available) GTEST_SKIP() << "built without the web front end";
  const std::string evil = "</script><script>alert(1)</script><img src=x onerror=alert(2)>\u202e\"'&";
  Trace trace = SmallTrace(evil);
  auto html = RenderPerformanceMap(trace, {});
  ASSERT_TRUE(html.ok());
  EXPECT_EQ(Count(*html, "<script"), 2u);
  EXPECT_EQ(Count(*html, "</script"), 2u);
  EXPECT_EQ(html->find("<img"), std::string::npos);
  // "onerror" appears only as escaped text in the title.
  EXPECT_GT(html->find("onerror"), html->find("<title>"));
  EXPECT_LT(html->find("onerror"), html->find("</title>"));
  EXPECT_EQ(html->find("onerror", html->find("</title>")), std::string::npos);
  // The title is escaped.
  EXPECT_NE(html->find("<title>/tmp/&lt;/script&gt;"), std::string::npos);
  Decoded d = DecodePage(*html);
  EXPECT_NE(std::find(d.strings.begin(), d.strings.end(), evil), d.strings.end());
  EXPECT_NE(std::find(d.strings.begin(), d.strings.end(), "18446744073709551615"), d.strings.end());  // exact
}

TEST(PerformanceMapTest, TimeRangeAndFindings) {
  if (!GetWebBundle().available) GTEST_SKIP() << "built without the web front end";
  Trace trace = SmallTrace("aten::mm");
  PerformanceMapOptions o;
  o.views = {"timeline", "summary"};
  o.time_range = TimeRange{.start = 1000, .end = 1950};
  MapFinding f;
  f.id = "F1";
  f.category = "launch_overhead";
  f.title = "t";
  f.confidence = 0.5;
  EvidenceRef in_range, outside;
  in_range.name = outside.name = "aten::mm";
  in_range.track_path = trace.TrackPath(trace.slices.track_id[0]);
  in_range.ts_ns = 1'001'100;
  outside.ts_ns = 1'000'100;  // outside the range
  f.evidence = {in_range, outside};
  o.findings = {f};
  PerformanceMapStats stats;
  auto html = RenderPerformanceMap(trace, o, &stats);
  ASSERT_TRUE(html.ok()) << html.status().message();
  EXPECT_EQ(stats.slices, 3u);  // step 1 with its op and kernel
  Decoded d = DecodePage(*html);
  EXPECT_EQ(d.header["range_start_ns"], 1000);
  EXPECT_EQ(d.header["views"], nlohmann::json({"timeline", "summary"}));
  const auto& ev = d.header["findings"][0]["evidence"];
  EXPECT_EQ(ev[0]["ts_ns"], 1100);
  EXPECT_TRUE(ev[0]["slice"].is_number());
  EXPECT_TRUE(ev[1]["slice"].is_null());  // found in the trace, but not on this page
  EXPECT_EQ(stats.findings_located, 2u);

  o.time_range = TimeRange{.start = 1'000'000'000, .end = std::nullopt};
  EXPECT_EQ(RenderPerformanceMap(trace, o).status().code(), StatusCode::kInvalidInput);
  o.time_range.reset();
  o.views = {"timeline", "bogus"};
  EXPECT_EQ(RenderPerformanceMap(trace, o).status().code(), StatusCode::kInvalidInput);
}

}  // namespace
}  // namespace cprof
