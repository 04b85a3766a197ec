// Tests of the Perfetto .pb export: round trip of every table through our reader, the file as
// protoc decodes it (the rules of src/proto/NOTES.md), truncation and atomic output.
#include "export/perfetto/perfetto_writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "export/perfetto/track_layout.h"
#include "export/testing/every_table_trace.h"
#include "export/testing/trace_equality.h"
#include "import/import_trace.h"
#include "model/trace_builder.h"

namespace cprof {
namespace {

namespace fs = std::filesystem;

class PerfettoWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("cprof_pb_" + std::to_string(getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Path(const std::string& name) const { return (dir_ / name).string(); }
  fs::path dir_;
};

StatusOr<Trace> RoundTrip(const Trace& trace, const std::string& path) {
  RETURN_IF_ERROR(WritePerfettoTrace(trace, path));
  return ImportTrace(path);
}

TEST_F(PerfettoWriterTest, RoundTripKeepsEveryTable) {
  Trace original = testing::MakeEveryTableTrace();
  ASSERT_GT(original.stats.Get(ImportStat::slice_improper_nesting), 0);  // the crossing slices
  auto back = RoundTrip(original, Path("every.pb"));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(testing::DiffTraces(original, *back), "");
  // String ids come back the same too (the pool is sent in id order).
  ASSERT_EQ(back->strings.size(), original.strings.size());
  for (uint32_t i = 0; i < original.strings.size(); ++i) EXPECT_EQ(back->Str(StringId{i}), original.Str(StringId{i}));
}

TEST_F(PerfettoWriterTest, RoundTripOfAnEmptyTrace) {
  Trace empty;
  TraceBuilder b(&empty);
  ASSERT_TRUE(b.Finalize().ok());
  auto back = RoundTrip(empty, Path("empty.pb"));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(testing::DiffTraces(empty, *back), "");
}

TEST_F(PerfettoWriterTest, LongStringsAndManyRowsAreChunked) {
  Trace trace;
  TraceBuilder b(&trace);
  std::string big(3'500'000, 'x');
  for (size_t i = 0; i < big.size(); i += 97) big[i] = static_cast<char>('a' + i % 26);
  b.SetMetadataString(meta::kDistributedInfo, big);
  TrackId t = b.ThreadTrack(1, 1);
  for (int i = 0; i < 200'000; ++i) {
    b.AddSlice({.ts_ns = i * 10, .dur_ns = 5, .track_id = t, .name_id = b.Intern("op" + std::to_string(i % 5000))});
    b.AddMemoryEvent({.ts_ns = i * 10, .track_id = t, .address = static_cast<uint64_t>(i), .bytes = i});
  }
  ASSERT_TRUE(b.Finalize().ok());
  const std::string path = Path("big.pb");
  auto back = RoundTrip(trace, path);
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(testing::DiffTraces(trace, *back), "");
  EXPECT_EQ(back->MetadataText(meta::kDistributedInfo), big);
}

TEST_F(PerfettoWriterTest, CrossingSlicesGoToProperlyNestedLanes) {
  Trace trace = testing::MakeEveryTableTrace();
  TrackLayout layout(trace);
  for (uint32_t t = 0; t < trace.tracks.size(); ++t) {
    auto [b, e] = trace.track_slices(TrackId{t});
    std::map<uint32_t, std::vector<int64_t>> open;  // lane -> stack of ends
    for (uint32_t i = b; i < e; ++i) {
      auto& stack = open[layout.SliceLane(i)];
      while (!stack.empty() && stack.back() <= trace.slices.ts_ns[i]) stack.pop_back();
      const int64_t end = TrackLayout::NestingEnd(trace, i);
      EXPECT_TRUE(stack.empty() || end <= stack.back()) << "slice " << i << " crosses on its lane";
      stack.push_back(end);
    }
  }
  uint32_t async = 0;
  while (trace.tracks.kind[async] != TrackKind::kAsync) ++async;
  EXPECT_EQ(layout.LaneCount(async), 2u);
}

// --- The file as protoc sees it -------------------------------------------------------------

struct DecodedPacket {
  std::string text;
  bool Has(const std::string& needle) const { return text.find(needle) != std::string::npos; }
};

// Runs protoc --decode on the file and splits its text output into top-level packets.
std::vector<DecodedPacket> DecodeWithProtoc(const std::string& pb_path, const std::string& out_path) {
  const std::string proto_dir = std::string(CPROF_SOURCE_DIR) + "/src/proto";
  const std::string cmd = "protoc --decode=perfetto.protos.Trace -I " + proto_dir + " " + proto_dir +
                          "/perfetto_trace.proto < " + pb_path + " > " + out_path + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    ADD_FAILURE() << "protoc failed: " << cmd;
    return {};
  }
  std::ifstream in(out_path);
  std::vector<DecodedPacket> packets;
  std::string line;
  while (std::getline(in, line)) {
    if (line == "packet {") {
      packets.emplace_back();
    } else if (!packets.empty()) {
      packets.back().text += line + "\n";
    }
  }
  return packets;
}

TEST_F(PerfettoWriterTest, ProtocDecodesPacketsThatFollowThePerfettoRules) {
  Trace trace = testing::MakeEveryTableTrace();
  const std::string pb = Path("rules.pb");
  ASSERT_TRUE(WritePerfettoTrace(trace, pb).ok());
  std::vector<DecodedPacket> packets = DecodeWithProtoc(pb, Path("decoded.txt"));
  ASSERT_GT(packets.size(), 10u);

  // The first packet starts the sequence and clears incremental state.
  EXPECT_TRUE(packets[0].Has("first_packet_on_sequence: true"));
  EXPECT_TRUE(packets[0].Has("sequence_flags: 1"));

  std::set<uint64_t> described;
  size_t begins = 0, ends = 0, counters = 0, payloads = 0, descriptors = 0;
  bool seen_event = false;
  const std::regex uuid_re(R"(track_uuid: (\d+))"), desc_uuid_re(R"(\n    uuid: (\d+))");
  for (const DecodedPacket& p : packets) {
    EXPECT_TRUE(p.Has("trusted_packet_sequence_id: 1")) << p.text;
    std::smatch m;
    if (p.Has("track_descriptor {")) {
      EXPECT_FALSE(seen_event) << "descriptor after an event";
      ASSERT_TRUE(std::regex_search(p.text, m, desc_uuid_re)) << p.text;
      described.insert(std::stoull(m[1]));
      ++descriptors;
    }
    if (p.Has("track_event {")) {
      seen_event = true;
      EXPECT_TRUE(p.Has("timestamp: ")) << p.text;
      ASSERT_TRUE(std::regex_search(p.text, m, uuid_re)) << p.text;
      EXPECT_TRUE(described.count(std::stoull(m[1]))) << "event on an undescribed track: " << p.text;
      // Packets that use interned ids say they need the sequence's incremental state.
      if (p.Has("_iid")) {
        EXPECT_TRUE(p.Has("sequence_flags: 2")) << p.text;
      }
      begins += p.Has("type: TYPE_SLICE_BEGIN");
      ends += p.Has("type: TYPE_SLICE_END");
      counters += p.Has("type: TYPE_COUNTER");
      // SLICE_END carries no name or category (it would only restrict which slice it closes).
      if (p.Has("type: TYPE_SLICE_END")) {
        EXPECT_FALSE(p.Has("name") || p.Has("categor")) << p.text;
      }
    }
    if (p.Has("cann_private_payload: ")) {
      ++payloads;
      EXPECT_FALSE(p.Has("track_event") || p.Has("track_descriptor") || p.Has("sequence_flags")) << p.text;
    }
  }
  size_t ended = 0;
  for (int64_t d : trace.slices.dur_ns) ended += d >= 0;
  EXPECT_EQ(begins, trace.slices.size());
  EXPECT_EQ(ends, ended);  // the dur -1 slice has no END
  EXPECT_EQ(counters, trace.counters.size());
  EXPECT_GE(payloads, 10u);
  EXPECT_GE(descriptors, trace.tracks.size() + 2);  // + an overlap lane and side tracks
  // Thread and process descriptors carry pid (and tid), the rest are named.
  bool thread = false, process = false, counter_desc = false;
  for (const DecodedPacket& p : packets) {
    thread |= p.Has("thread {") && p.Has("pid: 100") && p.Has("tid: 100") && p.Has("thread_name: \"python main\"");
    process |= p.Has("process {") && p.Has("process_name: \"trainer\"");
    counter_desc |= p.Has("counter {") && p.Has("unit_name: \"KB\"");
  }
  EXPECT_TRUE(thread && process && counter_desc);
}

// --- Bad input and atomic output ------------------------------------------------------------

TEST_F(PerfettoWriterTest, TruncatedFilesGiveOneLineErrorsWithFileAndOffset) {
  Trace trace = testing::MakeEveryTableTrace();
  const std::string pb = Path("whole.pb");
  ASSERT_TRUE(WritePerfettoTrace(trace, pb).ok());
  const auto size = fs::file_size(pb);
  std::string bytes(size, '\0');
  std::ifstream(pb, std::ios::binary).read(bytes.data(), size);
  for (size_t cut : {size_t{1}, size_t{5}, size / 3, size / 2, size - 3, size - 1}) {
    const std::string p = Path("cut_" + std::to_string(cut) + ".pb");
    std::ofstream(p, std::ios::binary).write(bytes.data(), cut);
    auto r = ImportTrace(p);
    ASSERT_FALSE(r.ok()) << "cut at " << cut;
    const std::string& msg = r.status().message();
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(msg.find(p), std::string::npos) << msg;
    EXPECT_NE(msg.find("byte "), std::string::npos) << msg;
    EXPECT_NE(msg.find("truncated"), std::string::npos) << msg;
    EXPECT_EQ(msg.find('\n'), std::string::npos) << msg;
  }
}

TEST_F(PerfettoWriterTest, GarbageGivesAnErrorNamingTheOffset) {
  const std::string p = Path("garbage.pb");
  {
    std::ofstream out(p, std::ios::binary);
    out << '\x0a' << '\x03' << "abc";  // one plausible packet of garbage
    out << "\x0a\x02\x08\x01";         // a real packet: timestamp 1... then junk
    out << "\xff\xfe not protobuf at all";
  }
  auto r = ImportTrace(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(p + ": byte 0"), std::string::npos) << r.status().message();

  const std::string q = Path("garbage2.pb");
  std::ofstream(q, std::ios::binary) << "\x0a\x02\x40\x01" << "\xff\xfe junk";
  r = ImportTrace(q);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find(q + ": byte 4: expected a TracePacket"), std::string::npos)
      << r.status().message();
}

TEST_F(PerfettoWriterTest, NoOutputFileIsLeftOnError) {
  Trace trace = testing::MakeEveryTableTrace();
  trace.flows.out_slice_id[0] = SliceId{999'999};  // a broken model: found mid-write
  const std::string pb = Path("broken.pb");
  Status st = WritePerfettoTrace(trace, pb);
  ASSERT_FALSE(st.ok());
  EXPECT_EQ(st.code(), StatusCode::kInternal);
  EXPECT_FALSE(fs::exists(pb));
  EXPECT_TRUE(fs::is_empty(dir_)) << "a temporary file was left behind";

  Trace unfinished;
  EXPECT_FALSE(WritePerfettoTrace(unfinished, Path("unfinished.pb")).ok());
  EXPECT_TRUE(fs::is_empty(dir_));
}

}  // namespace
}  // namespace cprof
