// Golden round trips over the real fixtures (every Kineto trace under fixtures/kineto and every
// torch_npu trace_view.json under fixtures/ascend):
//   import -> .pb -> import gives identical tables (every column, strings by content);
//   import -> Chrome JSON (.json.gz) -> import gives the same slice, flow, counter and memory
//   event counts, and in fact the same slices (ts, dur, name, category), track kinds and
//   flow kinds.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>
#include <tuple>
#include <string>
#include <vector>

#include "export/export_trace.h"
#include "export/testing/trace_equality.h"
#include "import/import_trace.h"

namespace cprof {
namespace {

namespace fs = std::filesystem;

std::vector<std::string> Fixtures() {
  std::vector<std::string> out;
  const fs::path root(CPROF_FIXTURES_DIR);
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(root / "kineto", ec); !ec && it != fs::recursive_directory_iterator();
       ++it) {
    const std::string p = it->path().string();
    if (it->is_regular_file() && (p.ends_with(".json") || p.ends_with(".json.gz"))) out.push_back(p);
  }
  for (auto it = fs::recursive_directory_iterator(root / "ascend", ec); !ec && it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_regular_file() && it->path().filename() == "trace_view.json") out.push_back(it->path().string());
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string TestName(const ::testing::TestParamInfo<std::string>& info) {
  std::string rel = fs::relative(info.param, CPROF_FIXTURES_DIR).string();
  for (char& c : rel) {
    if (!isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return rel;
}

class PbRoundTripGoldenTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cprof_golden_" + std::to_string(getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// Slices as a sorted list of (ts, dur, name, category): row order and track ids may differ
// between two importers' layouts, the slices themselves may not.
std::vector<std::tuple<int64_t, int64_t, std::string_view, std::string_view>> SliceKeys(const Trace& t) {
  std::vector<std::tuple<int64_t, int64_t, std::string_view, std::string_view>> keys;
  keys.reserve(t.slices.size());
  for (size_t i = 0; i < t.slices.size(); ++i) {
    keys.emplace_back(t.slices.ts_ns[i], t.slices.dur_ns[i], t.Str(t.slices.name_id[i]), t.Str(t.slices.category_id[i]));
  }
  std::sort(keys.begin(), keys.end());
  return keys;
}

template <typename Column>
std::map<int, size_t> Histogram(const Column& column) {
  std::map<int, size_t> h;
  for (auto v : column) ++h[static_cast<int>(v)];
  return h;
}

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

TEST_P(PbRoundTripGoldenTest, ThroughPbIsIdenticalAndThroughChromeJsonKeepsCounts) {
  const std::string& source = GetParam();
  auto original = ImportTrace(source);
  if (!original.ok() && original.status().code() == StatusCode::kUnavailable) {
    GTEST_SKIP() << original.status().message();
  }
  ASSERT_TRUE(original.ok()) << original.status().message();

  const std::string pb = (dir_ / "trace.pb").string();
  auto t0 = std::chrono::steady_clock::now();
  ASSERT_TRUE(ExportTrace(*original, pb, ExportFormat::kPerfettoPb).ok());
  const double write_s = Seconds(t0);
  t0 = std::chrono::steady_clock::now();
  auto back = ImportTrace(pb);
  const double read_s = Seconds(t0);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(testing::DiffTraces(*original, *back), "");

  const std::string json = (dir_ / "trace.json.gz").string();
  ASSERT_TRUE(ExportTrace(*original, json, ExportFormat::kChromeJson).ok());
  auto again = ImportTrace(json);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(again->slices.size(), original->slices.size());
  EXPECT_EQ(again->flows.size(), original->flows.size());
  EXPECT_EQ(again->counters.size(), original->counters.size());
  EXPECT_EQ(again->memory_events.size(), original->memory_events.size());
  EXPECT_TRUE(SliceKeys(*again) == SliceKeys(*original)) << "slices differ after Chrome JSON";
  EXPECT_EQ(Histogram(again->tracks.kind), Histogram(original->tracks.kind));
  EXPECT_EQ(Histogram(again->flows.kind), Histogram(original->flows.kind));

  RecordProperty("source_bytes", std::to_string(fs::file_size(source)));
  RecordProperty("pb_bytes", std::to_string(fs::file_size(pb)));
  std::cout << fs::relative(source, CPROF_FIXTURES_DIR).string() << ": " << fs::file_size(source) << " B source, "
            << fs::file_size(pb) << " B .pb, " << fs::file_size(json) << " B .json.gz; " << original->slices.size()
            << " slices; .pb write " << write_s << " s, read " << read_s << " s\n";
}

INSTANTIATE_TEST_SUITE_P(Fixtures, PbRoundTripGoldenTest, ::testing::ValuesIn(Fixtures()), TestName);

}  // namespace
}  // namespace cprof
