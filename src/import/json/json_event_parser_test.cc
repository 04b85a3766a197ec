// One event at a time through simdjson On-Demand: exact numbers, strings, args and bad fields.
#include "import/json/json_event_parser.h"

#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "base/time_units.h"

namespace cprof::json {
namespace {

// Parses `events` (each a JSON object text) as one batch.
class ParserTest : public ::testing::Test {
 protected:
  Status Parse(std::vector<std::string> events) {
    std::string all;
    std::vector<EventSpan> spans;
    for (const std::string& e : events) {
      spans.push_back({all.size(), e.size()});
      all += e;
      all += ',';
    }
    auto pool = std::make_shared<BufferPool>();
    auto chunk = std::make_shared<Chunk>(pool, all.size(), 100);
    std::memcpy(chunk->data(), all.data(), all.size());
    std::memset(chunk->data() + all.size(), 0, 64);
    split_.chunk = chunk;
    split_.events = spans;
    split_.first_event_index = 7;
    batch_.Reset();
    return parser_.Parse(split_, "t.json", false, &batch_);
  }
  const JsonEvent& Event(size_t i = 0) const { return batch_.events[i]; }
  const JsonArg& Arg(size_t i) const { return batch_.args[Event().arg_begin + i]; }

  JsonEventParser parser_;
  SplitBatch split_;
  ParsedBatch batch_;
};

TEST_F(ParserTest, ReadsTheCommonFields) {
  ASSERT_TRUE(Parse({R"({"ph": "X", "cat": "kernel", "name": "k", "pid": 3, "tid": 7, "ts": 5, "dur": 2.5,)"
                     R"( "id": 9, "bp": "e", "s": "p"})"})
                  .ok());
  const JsonEvent& e = Event();
  EXPECT_EQ(e.ph, 'X');
  EXPECT_EQ(e.cat, "kernel");
  EXPECT_EQ(e.name, "k");
  EXPECT_EQ(e.pid.num, 3);
  EXPECT_EQ(e.tid.num, 7);
  EXPECT_EQ(e.ts_ns, 5000);
  EXPECT_EQ(e.dur_ns, 2500);
  EXPECT_EQ(e.id.num, 9u);
  EXPECT_TRUE(e.bind_enclosing);
  EXPECT_EQ(e.scope, 'p');
  EXPECT_EQ(e.index, 7u);
  EXPECT_EQ(e.offset, 100u);
  EXPECT_FALSE(e.skip);
}

TEST_F(ParserTest, ParsesTimestampsExactly) {
  // 19 significant digits: a double would round these to a multiple of 0.25 us.
  ASSERT_TRUE(Parse({R"({"ph": "X", "ts": "1736408883688177.931", "dur": "2.1500000000000004"})",
                     R"({"ph": "X", "ts": 1712195495519689.047, "dur": 0.0005})",
                     R"({"ph": "X", "ts": -1.5, "dur": 1e3})"})
                  .ok());
  EXPECT_EQ(Event(0).ts_ns, 1736408883688177931);
  EXPECT_EQ(Event(0).dur_ns, 2150);
  EXPECT_EQ(Event(1).ts_ns, 1712195495519689047);
  EXPECT_EQ(Event(1).dur_ns, 1);  // half a ns rounds away from zero
  EXPECT_EQ(Event(2).ts_ns, -1500);
  EXPECT_EQ(Event(2).dur_ns, 1000000);  // exponent form goes through double
}

TEST_F(ParserTest, TimestampFastPathAgreesWithTheExactParser) {
  std::mt19937_64 rng(3);
  std::vector<std::string> texts = {"0", "0.0", "1.", "9223372036854774.999", "9223372036854775.807",
                                    "9223372036854775.808", "12.34567", "12.3455", "12.3454999", "007.5",
                                    "1736408883688177.930", "99999999999999999", "-5.5", "1.2.3"};
  for (int i = 0; i < 2000; ++i) {
    std::string t = std::to_string(rng() % 10000000000000000ull);
    if (rng() % 4) t += "." + std::to_string(rng() % 100000000);
    texts.push_back(t);
  }
  std::vector<std::string> events;
  for (const std::string& t : texts) events.push_back(R"({"ph": "X", "ts": ")" + t + R"("})");
  ASSERT_TRUE(Parse(events).ok());
  for (size_t i = 0; i < texts.size(); ++i) {
    auto exact = ParseDecimalMicrosToNs(texts[i]);
    EXPECT_EQ(Event(i).skip, !exact.has_value()) << texts[i];
    if (exact) {
      EXPECT_EQ(Event(i).ts_ns, *exact) << texts[i];
    }
  }
}

TEST_F(ParserTest, ReadsFlowIdsAboveTwoToThe53Exactly) {
  ASSERT_TRUE(Parse({R"({"ph": "s", "id": 1736408883700059821})", R"({"ph": "s", "id": 18446744073709551615})",
                     R"({"ph": "f", "id": "55425237668390240255"})", R"({"ph": "b", "id2": {"local": "0x1"}})"})
                  .ok());
  EXPECT_EQ(Event(0).id.num, 1736408883700059821u);
  EXPECT_EQ(Event(1).id.num, 18446744073709551615u);
  EXPECT_EQ(Event(2).id.kind, JsonFlowId::Kind::kString);
  EXPECT_EQ(Event(2).id.str, "55425237668390240255");
  EXPECT_EQ(Event(3).id.str, "0x1");
  EXPECT_TRUE(Event(3).id2_local);
}

TEST_F(ParserTest, KeepsStringPidsAndNumericStrings) {
  ASSERT_TRUE(Parse({R"({"ph": "X", "pid": "CPU functions", "tid": "12345"})"}).ok());
  EXPECT_EQ(Event().pid.kind, JsonId::Kind::kString);
  EXPECT_EQ(Event().pid.str, "CPU functions");
  EXPECT_EQ(Event().tid.kind, JsonId::Kind::kNumber);
  EXPECT_EQ(Event().tid.num, 12345);
}

TEST_F(ParserTest, ReadsArgsOfEveryType) {
  ASSERT_TRUE(Parse({R"({"ph": "X", "args": {"i": -3, "u": 18446744073709551615, "d": 0.25, "b": true,)"
                     R"( "n": null, "s": "text", "e": "a\"b\u00e9", "arr": [[1, 2], []], "obj": {"k": [1]},)"
                     R"( "k\"q": 1, "correlation": 42, "External id": 7}})"})
                  .ok());
  ASSERT_EQ(Event().arg_count, 12u);
  EXPECT_EQ(Arg(0).kind, JsonArg::Kind::kInt);
  EXPECT_EQ(Arg(0).i, -3);
  EXPECT_EQ(Arg(1).kind, JsonArg::Kind::kUint);
  EXPECT_EQ(Arg(2).kind, JsonArg::Kind::kDouble);
  EXPECT_EQ(Arg(2).d, 0.25);
  EXPECT_EQ(Arg(3).kind, JsonArg::Kind::kBool);
  EXPECT_EQ(Arg(4).kind, JsonArg::Kind::kNull);
  EXPECT_EQ(Arg(5).text, "text");
  EXPECT_EQ(Arg(6).text, "a\"b\xC3\xA9");
  EXPECT_EQ(Arg(7).kind, JsonArg::Kind::kJson);
  EXPECT_EQ(Arg(7).text, "[[1, 2], []]");
  EXPECT_EQ(Arg(8).text, R"({"k": [1]})");
  EXPECT_EQ(Arg(9).key, "k\"q");
  EXPECT_EQ(Event().correlation, 42);
  EXPECT_EQ(Event().external_id, 7);
}

TEST_F(ParserTest, MarksEventsWithBadFieldsForSkipping) {
  ASSERT_TRUE(Parse({R"({"ph": 1, "ts": 1})", R"({"ph": "X", "ts": true})", R"({"ph": "X", "ts": "abc"})",
                     R"({"ph": "X", "ts": 99999999999999999999})", R"({"ph": "X", "args": [1]})",
                     R"({"ph": "X", "name": 5})", R"({"ph": "X", "pid": 1.5})"})
                  .ok());
  for (size_t i = 0; i < batch_.events.size(); ++i) EXPECT_TRUE(Event(i).skip) << i;
  EXPECT_EQ(Event(0).skip_reason, ImportStat::json_bad_field_type);
  EXPECT_EQ(Event(3).skip_reason, ImportStat::timestamp_out_of_range);
}

TEST_F(ParserTest, RejectsMalformedEventsWithIndexAndOffset) {
  Status s = Parse({R"({"ph": "X"})", R"({"ph": "X", "ts": 1,, "dur": 2})"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kInvalidInput);
  EXPECT_NE(s.message().find("t.json: invalid trace JSON at byte 112 (event #8)"), std::string::npos) << s.message();
}

TEST_F(ParserTest, RejectsInvalidUtf8) {
  Status s = Parse({"{\"ph\": \"X\", \"name\": \"\xC3\x28\"}"});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("UTF-8"), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("event #7"), std::string::npos) << s.message();
}

TEST(SimdjsonTest, UsesASimdKernel) {
  EXPECT_TRUE(SimdjsonUsesSimd()) << SimdjsonImplementation();
}

}  // namespace
}  // namespace cprof::json
