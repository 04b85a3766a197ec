// The splitter on both container forms, at every chunk size, and on broken structure.
#include "import/json/event_splitter.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "import/json/structural_scanner.h"

namespace cprof::json {
namespace {

// Serves a string in pieces of at most `piece` bytes per Read().
class StringSource : public ByteSource {
 public:
  StringSource(std::string data, size_t piece) : ByteSource("mem.json"), data_(std::move(data)), piece_(piece) {}
  StatusOr<size_t> Read(char* dst, size_t n) override {
    n = std::min({n, piece_, data_.size() - pos_});
    std::memcpy(dst, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  uint64_t file_offset() const override { return pos_; }
  uint64_t file_size() const override { return data_.size(); }
  bool compressed() const override { return false; }

 private:
  std::string data_;
  size_t piece_;
  size_t pos_ = 0;
};

struct Split {
  std::vector<std::string> events;
  std::vector<uint64_t> indexes;
  std::vector<std::pair<std::string, std::string>> members;
  bool unterminated = false;
  bool object_form = false;
};

StatusOr<Split> SplitAll(const std::string& json, size_t chunk, size_t piece = 1 << 20) {
  StringSource src(json, piece);
  EventSplitter splitter(&src, chunk);
  Split out;
  SplitBatch batch;
  do {
    RETURN_IF_ERROR(splitter.Next(&batch));
    for (size_t i = 0; i < batch.events.size(); ++i) {
      const EventSpan& e = batch.events[i];
      out.events.emplace_back(batch.chunk->data() + e.begin, e.size);
      out.indexes.push_back(batch.first_event_index + i);
      // Every event is followed by readable padding inside its chunk.
      EXPECT_LE(e.begin + e.size + kScanPadding, batch.chunk->capacity());
    }
    for (auto& m : batch.members) out.members.emplace_back(m.key, m.value);
  } while (!batch.last);
  out.unterminated = splitter.unterminated_array();
  out.object_form = splitter.object_form();
  return out;
}

TEST(EventSplitterTest, SplitsTheArrayFormAtEveryChunkSize) {
  const std::string json = "\xEF\xBB\xBF [ {\"ph\":\"X\",\"name\":\"a}\"} ,\n{\"args\":{\"x\":[1,{\"y\":\"]\"}]}},{} ]\n";
  for (size_t chunk : {64, 65, 70, 100, 1 << 20}) {
    for (size_t piece : {1, 7, 1 << 20}) {
      auto s = SplitAll(json, chunk, piece);
      ASSERT_TRUE(s.ok()) << s.status().message();
      ASSERT_EQ(s->events.size(), 3u) << chunk;
      EXPECT_EQ(s->events[0], "{\"ph\":\"X\",\"name\":\"a}\"}");
      EXPECT_EQ(s->events[1], "{\"args\":{\"x\":[1,{\"y\":\"]\"}]}}");
      EXPECT_EQ(s->events[2], "{}");
      EXPECT_EQ(s->indexes[2], 2u);
      EXPECT_FALSE(s->unterminated);
    }
  }
}

TEST(EventSplitterTest, KeepsTopLevelMembersAroundTraceEvents) {
  const std::string json =
      R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "A]}"}], "traceEvents": [{"ph": "M"}],)"
      R"( "traceName": "x\"y", "baseTimeNanoseconds": 1735632360000000000, "flag": true})";
  for (size_t chunk : {64, 97, 1 << 20}) {
    auto s = SplitAll(json, chunk, 13);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_TRUE(s->object_form);
    ASSERT_EQ(s->events.size(), 1u);
    ASSERT_EQ(s->members.size(), 5u);
    EXPECT_EQ(s->members[0], (std::pair<std::string, std::string>{"schemaVersion", "1"}));
    EXPECT_EQ(s->members[1].second, R"([{"id": 0, "name": "A]}"}])");
    EXPECT_EQ(s->members[2].second, R"("x\"y")");
    EXPECT_EQ(s->members[3].second, "1735632360000000000");
    EXPECT_EQ(s->members[4].second, "true");
  }
}

TEST(EventSplitterTest, AcceptsAnArrayWithoutItsClosingBracket) {
  for (const char* json : {"[{\"a\":1},{\"b\":2}", "[{\"a\":1},{\"b\":2},\n", "[ "}) {
    auto s = SplitAll(json, 64);
    ASSERT_TRUE(s.ok()) << s.status().message();
    EXPECT_TRUE(s->unterminated);
  }
}

TEST(EventSplitterTest, HandlesAnEventLargerThanAChunk) {
  std::string big = "{\"name\":\"" + std::string(10000, 'x') + "\"}";
  auto s = SplitAll("[" + big + "," + big + "]", 64);
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->events.size(), 2u);
  EXPECT_EQ(s->events[1], big);
}

void ExpectError(const std::string& json, const std::string& needle) {
  for (size_t chunk : {64, 1 << 20}) {
    auto s = SplitAll(json, chunk);
    ASSERT_FALSE(s.ok()) << json;
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidInput);
    EXPECT_NE(s.status().message().find(needle), std::string::npos) << s.status().message();
    EXPECT_NE(s.status().message().find("mem.json"), std::string::npos);
    EXPECT_EQ(s.status().message().find('\n'), std::string::npos) << "one line";
  }
}

TEST(EventSplitterTest, ReportsBrokenStructureWithOffsetAndEventIndex) {
  ExpectError("", "empty file");
  ExpectError("  \n ", "only whitespace");
  ExpectError("nope", "at byte 0: expected a JSON object or array, found 'n'");
  ExpectError("\x01", "byte 0x01");
  ExpectError("[{\"a\":1}, 5]", "at byte 10: event #1 is not a JSON object");
  ExpectError("[{\"a\":1} {\"b\":2}]", "expected ',' or ']' after event #0");
  ExpectError("[{\"a\":1},]", "event #1 is not a JSON object (trailing comma");
  ExpectError("[{\"a\":1}] x", "at byte 10: unexpected data after the end");
  ExpectError("[{\"a\":1},{\"b\":", "at byte 9: truncated inside event #1");
  ExpectError("{\"traceEvents\": [{\"a\":1}", "ends inside the 'traceEvents' array after 1 events");
  ExpectError("{\"traceEvents\": [], \"x\": ", "truncated: the file ends inside the top-level object");
  ExpectError("{\"other\": 1}", "without a 'traceEvents' array");
  ExpectError("{\"traceEvents\": 5}", "'traceEvents' is not an array");
  ExpectError("{\"traceEvents\": [], \"traceEvents\": []}", "a second 'traceEvents' array");
  ExpectError("{traceEvents: []}", "expected a quoted key");
  ExpectError("{\"traceEvents\" []}", "expected ':' after the key \"traceEvents\"");
  ExpectError("{\"traceEvents\": [] \"x\": 1}", "expected ',' or '}' in the top-level object");
}

}  // namespace
}  // namespace cprof::json
