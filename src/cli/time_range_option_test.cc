// --time_range: parsed early, then checked against the trace it selects from.
#include "cli/time_range_option.h"

#include <gtest/gtest.h>

#include <sstream>

#include "cli/cli_app.h"

namespace cprof::cli {
namespace {

TEST(TimeRangeOptionTest, ParsesOrNamesTheFlag) {
  EXPECT_FALSE(ParseTimeRangeOption("")->has_value());
  auto r = ParseTimeRangeOption("1s:2.5s");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(*(*r)->start, 1'000'000'000);
  EXPECT_EQ(*(*r)->end, 2'500'000'000);
  auto backwards = ParseTimeRangeOption("2s:1s", "--baseline_range");
  ASSERT_FALSE(backwards.ok());
  EXPECT_NE(backwards.status().message().find("--baseline_range"), std::string::npos) << backwards.status().message();
  auto empty = ParseTimeRangeOption("1s:1s");
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.status().message().find("--time_range 1s:1s: the end must be after the start"), std::string::npos)
      << empty.status().message();
  EXPECT_FALSE(ParseTimeRangeOption("soon:later").ok());
}

TEST(TimeRangeOptionTest, AWindowPastTheTracesEndIsAnError) {
  Trace t;
  t.start_ns = 5'000'000'000;
  t.end_ns = 8'000'000'000;  // 3 s long
  auto inside = WindowInTrace(t, *ParseTimeRangeOption("1s:10s"), "1s:10s");
  ASSERT_TRUE(inside.ok());
  EXPECT_EQ(inside->start_ns, 6'000'000'000);
  EXPECT_EQ(inside->end_ns, 15'000'000'000);
  auto open_start = WindowInTrace(t, *ParseTimeRangeOption(":1s"), ":1s");
  ASSERT_TRUE(open_start.ok());
  EXPECT_TRUE(open_start->Contains(t.start_ns));

  auto past = WindowInTrace(t, *ParseTimeRangeOption("3s:4s"), "3s:4s");
  ASSERT_FALSE(past.ok());
  EXPECT_EQ(past.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(past.status().message().find("starts after the trace ends"), std::string::npos) << past.status().message();
  EXPECT_NE(past.status().message().find("3"), std::string::npos);
  EXPECT_FALSE(WindowInTrace(t, std::nullopt, "")->bounded());
}

// Through the commands: summary and diagnose refuse a window past the end with exit code 2.
TEST(TimeRangeOptionTest, CommandsRefuseAWindowPastTheEnd) {
  const std::string trace = CPROF_FIXTURES_DIR "/kineto/hta/nccl_parser_config/nccl_data.json.gz";
  for (const char* cmd : {"summary", "diagnose"}) {
    std::ostringstream out, err;
    std::vector<std::string> args = {cmd, "--time_range", "1000s:2000s"};
    if (std::string(cmd) == "diagnose") args.insert(args.begin() + 1, {"--trace", trace});
    else args.insert(args.begin() + 1, trace);
    EXPECT_EQ(RunCli(args, out, err), 2) << cmd << ": " << out.str();
    EXPECT_NE(err.str().find("starts after the trace ends"), std::string::npos) << cmd << ": " << err.str();
  }
}

}  // namespace
}  // namespace cprof::cli
