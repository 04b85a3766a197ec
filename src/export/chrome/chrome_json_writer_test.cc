// Tests of the Chrome JSON export: the document parses, events carry exact microsecond
// timestamps, rows follow Kineto's layout, .json.gz is gzip, nothing is left behind on error.
// (The round trip through our JSON importer is in pb_roundtrip_golden_test.cc.)
#include "export/chrome/chrome_json_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "base/byte_source.h"
#include "export/chrome/json_sink.h"
#include "export/testing/every_table_trace.h"

namespace cprof {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

class ChromeJsonWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cprof_chrome_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  json Load(const std::string& path) {
    auto text = ReadWholeFile(path);  // gunzips by magic bytes
    EXPECT_TRUE(text.ok()) << text.status().message();
    return json::parse(*text);
  }
  fs::path dir_;
};

TEST_F(ChromeJsonWriterTest, WritesEveryEventKind) {
  Trace trace = testing::MakeEveryTableTrace();
  const std::string path = Path("every.json");
  ASSERT_TRUE(WriteChromeJson(trace, path).ok());
  json doc = Load(path);
  ASSERT_TRUE(doc.contains("traceEvents"));
  EXPECT_EQ(doc["deviceProperties"][0]["name"], "H100");  // JSON text written as JSON
  EXPECT_EQ(doc["distributedInfo"]["rank"], 3);
  EXPECT_FALSE(doc.contains("source_format"));  // derived again by the importer

  std::map<std::string, int> phases;
  int memory = 0;
  for (const json& e : doc["traceEvents"]) {
    phases[e["ph"].get<std::string>()]++;
    if (e.value("name", "") == "[memory]") ++memory;
  }
  size_t open_slices = 0;
  for (int64_t d : trace.slices.dur_ns) open_slices += d < 0;
  EXPECT_EQ(phases["X"], static_cast<int>(trace.slices.size() - open_slices));
  EXPECT_EQ(phases["B"], static_cast<int>(open_slices));
  EXPECT_EQ(phases["C"], static_cast<int>(trace.counters.size()));
  EXPECT_EQ(phases["s"], static_cast<int>(trace.flows.size()));
  EXPECT_EQ(phases["f"], static_cast<int>(trace.flows.size()));
  EXPECT_EQ(memory, static_cast<int>(trace.memory_events.size()));
  EXPECT_GT(phases["M"], 0);
}

TEST_F(ChromeJsonWriterTest, RowsFollowKinetoAndTimesAreExact) {
  Trace trace;
  TraceBuilder b(&trace);
  TrackId host = b.ThreadTrack(42, 43);
  TrackId stream = b.StreamTrack(TrackKind::kGpuStream, 1, 7);
  b.AddSlice({.ts_ns = 1736408883688177930, .dur_ns = 145570, .track_id = host, .name_id = b.Intern("aten::mm"),
              .category_id = b.Intern("cpu_op"), .correlation_id = 9});
  b.AddSlice({.ts_ns = -5, .dur_ns = 1, .track_id = stream, .name_id = b.Intern("k\x01\xff\"")});
  ASSERT_TRUE(b.Finalize().ok());
  const std::string path = Path("rows.json");
  ASSERT_TRUE(WriteChromeJson(trace, path).ok());
  auto text = ReadWholeFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("\"ts\":1736408883688177.930,\"dur\":145.570"), std::string::npos) << *text;
  EXPECT_NE(text->find("\"ts\":-0.005,\"dur\":0.001"), std::string::npos) << *text;
  json doc = json::parse(*text);  // control characters and invalid UTF-8 were escaped
  bool kernel = false, op = false;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] != "X") continue;
    if (e["name"] == "aten::mm") {
      op = e["pid"] == 42 && e["tid"] == 43 && e["args"]["correlation"] == 9;
    } else {
      kernel = e["pid"] == 1 && e["tid"] == 7 && e["name"] == "k\x01\xEF\xBF\xBD\"";
    }
  }
  EXPECT_TRUE(op && kernel) << doc.dump();
}

// A thread track below a thread with its tid (`trace`'s sampled Python stack) gets a row of its own:
// on one row, the import nested the thread's ProfilerStep#1-9 under a sampled frame of step 0.
TEST_F(ChromeJsonWriterTest, AThreadsChildTrackGetsItsOwnRow) {
  Trace trace;
  TraceBuilder b(&trace);
  const TrackId thread = b.ThreadTrack(42, 42);
  const TrackId sampled = b.ChildTrack(thread, TrackKind::kThread, b.Intern("python (sampled)"));
  ASSERT_EQ(trace.tracks.tid[Index(sampled)], 42);
  b.AddSlice({.ts_ns = 1000, .dur_ns = 100, .track_id = thread, .name_id = b.Intern("ProfilerStep#0")});
  b.AddSlice({.ts_ns = 1050, .dur_ns = 200, .track_id = sampled, .name_id = b.Intern("train.py(3): step")});
  ASSERT_TRUE(b.Finalize().ok());
  const std::string path = Path("rows.json");
  ASSERT_TRUE(WriteChromeJson(trace, path).ok());
  std::map<std::string, std::pair<int64_t, int64_t>> rows;
  std::map<int64_t, std::string> names;
  const json doc = Load(path);
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "X") rows[e["name"].get<std::string>()] = {e["pid"].get<int64_t>(), e["tid"].get<int64_t>()};
    if (e["ph"] == "M" && e["name"] == "thread_name")
      names[e["tid"].get<int64_t>()] = e["args"]["name"].get<std::string>();
  }
  EXPECT_EQ(rows["ProfilerStep#0"], std::make_pair(int64_t{42}, int64_t{42}));
  EXPECT_EQ(rows["train.py(3): step"].first, 42);
  EXPECT_NE(rows["train.py(3): step"].second, 42);
  EXPECT_EQ(names[rows["train.py(3): step"].second], "python (sampled)");
}

TEST_F(ChromeJsonWriterTest, TimesAreRelativeToBaseTimeNanoseconds) {
  Trace trace;
  TraceBuilder b(&trace);
  b.SetMetadata(meta::kBaseTimeNs, Value::Int(1'700'000'000'000'000'000));
  b.AddSlice({.ts_ns = 1'700'000'000'000'001'234, .dur_ns = 10, .track_id = b.ThreadTrack(1, 1)});
  ASSERT_TRUE(b.Finalize().ok());
  const std::string path = Path("base.json");
  ASSERT_TRUE(WriteChromeJson(trace, path).ok());
  json doc = Load(path);
  EXPECT_EQ(doc["baseTimeNanoseconds"], 1'700'000'000'000'000'000);
  bool found = false;
  for (const json& e : doc["traceEvents"]) {
    if (e["ph"] == "X") found = e["ts"].get<double>() == 1.234;
  }
  EXPECT_TRUE(found) << doc.dump();
}

TEST_F(ChromeJsonWriterTest, GzipOutputForJsonGz) {
  Trace trace = testing::MakeEveryTableTrace();
  const std::string plain = Path("t.json"), gz = Path("t.json.gz");
  ASSERT_TRUE(WriteChromeJson(trace, plain).ok());
  ASSERT_TRUE(WriteChromeJson(trace, gz).ok());
  EXPECT_TRUE(IsGzipFile(gz));
  EXPECT_FALSE(IsGzipFile(plain));
  EXPECT_EQ(*ReadWholeFile(gz), *ReadWholeFile(plain));
}

TEST_F(ChromeJsonWriterTest, NoOutputFileIsLeftOnError) {
  Trace trace = testing::MakeEveryTableTrace();
  trace.flows.in_slice_id[0] = SliceId{123'456};
  const std::string path = Path("broken.json.gz");
  Status st = WriteChromeJson(trace, path);
  ASSERT_FALSE(st.ok());
  EXPECT_FALSE(fs::exists(path));
  EXPECT_TRUE(fs::is_empty(dir_));
}

TEST(JsonSinkTest, DoublesStayDoublesAndMicrosAreExact) {
  const std::string path = (fs::temp_directory_path() / ("cprof_sink_" + std::to_string(getpid()))).string();
  {
    AtomicFile f(path);
    ASSERT_TRUE(f.Open().ok());
    JsonSink out(&f, false);
    out.Double(1.0);
    out.Char(' ');
    out.Double(0.1);
    out.Char(' ');
    out.Double(1e300);
    out.Char(' ');
    out.Double(-std::numeric_limits<double>::infinity());
    out.Char(' ');
    out.Micros(std::numeric_limits<int64_t>::min());
    out.Char(' ');
    out.Micros(999);
    ASSERT_TRUE(out.Finish().ok());
    ASSERT_TRUE(f.Commit().ok());
  }
  EXPECT_EQ(*ReadWholeFile(path), "1.0 0.1 1e+300 \"-inf\" -9223372036854775.808 0.999");
  fs::remove(path);
}

}  // namespace
}  // namespace cprof
