// Tests of the .pb reader on Perfetto traces written by other tools (TrackEvent only, no
// private payload): tracks from descriptors, interning per sequence, slices, counters, flows,
// args, and the import stats for what does not fit. Our own files are round-tripped in
// src/export/perfetto/perfetto_writer_test.cc.
#include "import/perfetto/perfetto_trace_reader.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <deque>
#include <filesystem>
#include <map>
#include <fstream>

#include "import/import_trace.h"
#include "perfetto_trace.pb.h"
#include "proto/cprof_payload_format.h"

namespace cprof {
namespace {

namespace fs = std::filesystem;
using perfetto::protos::TracePacket;
using perfetto::protos::TrackEvent;

// Builds a trace file packet by packet, the way a Perfetto SDK would.
class TraceFileBuilder {
 public:
  TracePacket& Add(uint32_t seq = 7) {
    packets_.emplace_back();
    if (seq) packets_.back().set_trusted_packet_sequence_id(seq);
    return packets_.back();
  }
  TrackEvent* Event(uint64_t ts, uint64_t uuid, TrackEvent::Type type, uint32_t seq = 7) {
    TracePacket& p = Add(seq);
    p.set_timestamp(ts);
    TrackEvent* e = p.mutable_track_event();
    if (uuid) e->set_track_uuid(uuid);
    e->set_type(type);
    return e;
  }
  // Appends raw bytes to the last packet (fields this schema does not declare).
  void AppendRaw(std::string bytes) { raw_tail_[packets_.size() - 1] = std::move(bytes); }

  std::string Bytes() const {
    std::string out;
    for (size_t i = 0; i < packets_.size(); ++i) {
      std::string p = packets_[i].SerializeAsString();
      if (auto it = raw_tail_.find(i); it != raw_tail_.end()) p += it->second;
      out.push_back(static_cast<char>(pb::kTracePacketTag));
      pb::AppendVarint(p.size(), &out);
      out += p;
    }
    return out;
  }

 private:
  std::deque<TracePacket> packets_;  // stable addresses for the pointers handed out
  std::map<size_t, std::string> raw_tail_;
};

class PerfettoReaderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cprof_pbr_" + std::to_string(getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string Write(const std::string& name, const std::string& bytes) {
    const std::string path = (dir_ / name).string();
    std::ofstream(path, std::ios::binary) << bytes;
    return path;
  }
  fs::path dir_;
};

// A trace like the Perfetto SDK writes for an app: process and thread tracks, an async track
// under the thread, a counter track, interned names.
TraceFileBuilder AppTrace() {
  TraceFileBuilder f;
  TracePacket& first = f.Add();
  first.set_sequence_flags(TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
  first.set_first_packet_on_sequence(true);
  auto* d = first.mutable_interned_data();
  auto* n = d->add_event_names();
  n->set_iid(1);
  n->set_name("DrawFrame");
  auto* c = d->add_event_categories();
  c->set_iid(1);
  c->set_name("gfx");
  auto* k = d->add_debug_annotation_names();
  k->set_iid(1);
  k->set_name("frame");
  auto* v = d->add_debug_annotation_string_values();
  v->set_iid(1);
  v->set_str("vsync");

  auto desc = [&](uint64_t uuid) { return f.Add().mutable_track_descriptor(); };
  auto* proc = desc(1);
  proc->set_uuid(1);
  proc->mutable_process()->set_pid(10);
  proc->mutable_process()->set_process_name("app");
  auto* thread = desc(2);
  thread->set_uuid(2);
  thread->set_parent_uuid(1);
  thread->mutable_thread()->set_pid(10);
  thread->mutable_thread()->set_tid(11);
  thread->mutable_thread()->set_thread_name("RenderThread");
  auto* async = desc(3);
  async->set_uuid(3);
  async->set_parent_uuid(2);
  async->set_name("loads");
  auto* counter = desc(4);
  counter->set_uuid(4);
  counter->set_parent_uuid(1);
  counter->set_name("mem");
  counter->mutable_counter()->set_unit_name("bytes");

  // Thread: DrawFrame [100, 200] with a child [120, 150] and an instant at 130.
  TrackEvent* e = f.Event(100, 2, TrackEvent::TYPE_SLICE_BEGIN);
  e->set_name_iid(1);
  e->add_category_iids(1);
  auto* a = e->add_debug_annotations();
  a->set_name_iid(1);
  a->set_int_value(7);
  a = e->add_debug_annotations();
  a->set_name("source");
  a->set_string_value_iid(1);
  a = e->add_debug_annotations();
  a->set_name("cfg");
  auto* entry = a->add_dict_entries();
  entry->set_name("depth");
  entry->set_uint_value(3);
  auto* arr = a->add_dict_entries();
  arr->set_name("sizes");
  arr->add_array_values()->set_double_value(1.5);
  arr->add_array_values()->set_bool_value(true);
  e->add_flow_ids(99);
  f.Event(120, 2, TrackEvent::TYPE_SLICE_BEGIN)->set_name("child");
  f.Event(130, 2, TrackEvent::TYPE_INSTANT)->set_name("mark");
  f.Event(150, 2, TrackEvent::TYPE_SLICE_END);
  TrackEvent* end = f.Event(200, 2, TrackEvent::TYPE_SLICE_END);
  end->add_debug_annotations()->set_name("result");  // END args merge into the slice
  end->mutable_debug_annotations(0)->set_bool_value(false);
  // Async track: a slice that is the flow's target, and one that never ends.
  TrackEvent* load = f.Event(300, 3, TrackEvent::TYPE_SLICE_BEGIN);
  load->set_name("load");
  load->add_terminating_flow_ids(99);
  f.Event(400, 3, TrackEvent::TYPE_SLICE_END);
  f.Event(500, 3, TrackEvent::TYPE_SLICE_BEGIN)->set_name("open");
  // Counters, int and double.
  f.Event(100, 4, TrackEvent::TYPE_COUNTER)->set_counter_value(1024);
  f.Event(600, 4, TrackEvent::TYPE_COUNTER)->set_double_counter_value(0.5);
  return f;
}

TEST_F(PerfettoReaderTest, ReadsTrackEventTracesOfOtherTools) {
  TraceFileBuilder f = AppTrace();
  auto r = ImportTrace(Write("app.pb", f.Bytes()));
  ASSERT_TRUE(r.ok()) << r.status().message();
  const Trace& t = *r;
  EXPECT_EQ(t.MetadataText(meta::kSourceFormat), "perfetto");
  EXPECT_EQ(t.stats.CountAtLeast(Severity::kInfo), 1) << "only the unclosed slice";
  EXPECT_EQ(t.stats.Get(ImportStat::unclosed_begin), 1);

  // Tracks: process, thread (named), async child of the thread, counter with unit.
  auto find_track = [&](std::string_view name) {
    for (uint32_t i = 0; i < t.tracks.size(); ++i) {
      if (t.Str(t.tracks.name_id[i]) == name) return i;
    }
    ADD_FAILURE() << "no track " << name;
    return 0u;
  };
  const uint32_t thread = find_track("RenderThread"), loads = find_track("loads"), mem = find_track("mem");
  EXPECT_EQ(t.tracks.kind[thread], TrackKind::kThread);
  EXPECT_EQ(t.tracks.tid[thread], 11);
  EXPECT_EQ(t.tracks.kind[find_track("app")], TrackKind::kProcess);
  EXPECT_EQ(t.tracks.kind[loads], TrackKind::kAsync);
  EXPECT_EQ(Index(t.tracks.parent_id[loads]), thread);
  EXPECT_EQ(t.tracks.kind[mem], TrackKind::kCounter);
  EXPECT_EQ(t.Str(t.tracks.unit_id[mem]), "bytes");

  // Slices of the thread: DrawFrame > child > mark.
  auto [b, e] = t.track_slices(TrackId{thread});
  ASSERT_EQ(e - b, 3u);
  EXPECT_EQ(t.Str(t.slices.name_id[b]), "DrawFrame");
  EXPECT_EQ(t.Str(t.slices.category_id[b]), "gfx");
  EXPECT_EQ(t.slices.dur_ns[b], 100);
  EXPECT_EQ(t.slices.depth[b + 1], 1u);
  EXPECT_EQ(t.Str(t.slices.name_id[b + 2]), "mark");
  EXPECT_EQ(t.slices.dur_ns[b + 2], 0);
  EXPECT_EQ(t.SliceArg(b, "frame")->i, 7);
  EXPECT_EQ(t.Str(t.SliceArg(b, "source")->s), "vsync");
  EXPECT_EQ(t.SliceArg(b, "cfg.depth")->u, 3u);
  EXPECT_EQ(t.SliceArg(b, "cfg.sizes[0]")->d, 1.5);
  EXPECT_TRUE(t.SliceArg(b, "cfg.sizes[1]")->b);
  EXPECT_FALSE(t.SliceArg(b, "result")->b);

  // The flow, and the slice that never ended (closed at the last timestamp, as JSON B events).
  ASSERT_EQ(t.flows.size(), 1u);
  EXPECT_EQ(t.Str(t.slices.name_id[Index(t.flows.out_slice_id[0])]), "DrawFrame");
  EXPECT_EQ(t.Str(t.slices.name_id[Index(t.flows.in_slice_id[0])]), "load");
  auto [lb, le] = t.track_slices(TrackId{loads});
  ASSERT_EQ(le - lb, 2u);
  EXPECT_EQ(t.slices.dur_ns[lb + 1], 100);  // 500 .. 600, the last timestamp

  ASSERT_EQ(t.counters.size(), 2u);
  EXPECT_EQ(t.counters.value[0], 1024);
  EXPECT_EQ(t.counters.value[1], 0.5);
}

TEST_F(PerfettoReaderTest, CountsWhatDoesNotFit) {
  TraceFileBuilder f = AppTrace();
  f.Event(700, 2, TrackEvent::TYPE_SLICE_END);                 // nothing open
  f.Event(700, 555, TrackEvent::TYPE_SLICE_BEGIN);             // never described
  f.Event(700, 2, TrackEvent::TYPE_SLICE_BEGIN)->set_name_iid(42);  // iid never defined
  f.Event(710, 2, TrackEvent::TYPE_SLICE_END);
  f.Event(720, 2, TrackEvent::TYPE_COUNTER);                   // no value
  f.Add().set_timestamp(5);
  f.AppendRaw(std::string("\x12\x03\x08\x01\x10", 5));         // an ftrace-like field we skip
  TracePacket& untimed = f.Add();
  untimed.mutable_track_event()->set_type(TrackEvent::TYPE_INSTANT);
  auto r = ImportTrace(Write("odd.pb", f.Bytes()));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->stats.Get(ImportStat::pb_unmatched_end), 1);
  EXPECT_EQ(r->stats.Get(ImportStat::pb_unknown_track), 1);
  EXPECT_EQ(r->stats.Get(ImportStat::pb_invalid_iid), 1);
  EXPECT_EQ(r->stats.Get(ImportStat::counter_non_numeric), 1);
  EXPECT_EQ(r->stats.Get(ImportStat::pb_unknown_packet), 2);
}

TEST_F(PerfettoReaderTest, InterningIsPerSequenceAndClearedByTheFlag) {
  TraceFileBuilder f = AppTrace();
  // Sequence 8 never defined iid 1; sequence 7 clears its state, then redefines iid 1.
  f.Event(800, 2, TrackEvent::TYPE_INSTANT, 8)->set_name_iid(1);
  TracePacket& clear = f.Add();
  clear.set_sequence_flags(TracePacket::SEQ_INCREMENTAL_STATE_CLEARED);
  auto* n = clear.mutable_interned_data()->add_event_names();
  n->set_iid(1);
  n->set_name("Renamed");
  f.Event(810, 2, TrackEvent::TYPE_INSTANT)->set_name_iid(1);
  // Defaults give events without a track_uuid their track.
  f.Add().mutable_trace_packet_defaults()->mutable_track_event_defaults()->set_track_uuid(3);
  f.Event(820, 0, TrackEvent::TYPE_INSTANT)->set_name("defaulted");
  auto r = ImportTrace(Write("seq.pb", f.Bytes()));
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->stats.Get(ImportStat::pb_invalid_iid), 1);
  bool renamed = false, defaulted = false;
  for (uint32_t i = 0; i < r->slices.size(); ++i) {
    renamed |= r->Str(r->slices.name_id[i]) == "Renamed" && r->slices.ts_ns[i] == 810;
    defaulted |= r->Str(r->slices.name_id[i]) == "defaulted" &&
                 r->Str(r->tracks.name_id[Index(r->slices.track_id[i])]) == "loads";
  }
  EXPECT_TRUE(renamed && defaulted);
}

TEST_F(PerfettoReaderTest, ReadsGzippedFiles) {
  const std::string bytes = AppTrace().Bytes();
  const std::string path = (dir_ / "app.pb.gz").string();
  gzFile gz = gzopen(path.c_str(), "wb");
  ASSERT_NE(gz, nullptr);
  gzwrite(gz, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(gz);
  auto plain = ImportTrace(Write("app.pb", bytes));
  auto packed = ImportTrace(path);
  ASSERT_TRUE(plain.ok() && packed.ok()) << packed.status().message();
  EXPECT_EQ(packed->slices.size(), plain->slices.size());
  EXPECT_EQ(packed->counters.size(), plain->counters.size());
}

TEST_F(PerfettoReaderTest, BadPayloadChunksAreErrors) {
  TraceFileBuilder f;
  f.Add().set_cann_private_payload(std::string("\x0a\x02\x08\x63", 4));  // header, version 99
  auto r = ImportTrace(Write("future.pb", f.Bytes()));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("byte 0: cann-profiler payload: format version 99"), std::string::npos)
      << r.status().message();

  TraceFileBuilder g;
  g.Add().set_cann_private_payload("\xff\xff garbage");
  r = ImportTrace(Write("garbage_payload.pb", g.Bytes()));
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("malformed chunk"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace cprof
