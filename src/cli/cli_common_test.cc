// The shared CLI contract: exit codes, both flag spellings, output format choice, and the rule
// that every multi-word flag is registered with its underscore spelling.
#include "cli/cli_common.h"

#include <gtest/gtest.h>

#include "cli/cli_test_util.h"
#include "cli/commands.h"

namespace cprof::cli {
namespace {

TEST(CliCommonTest, ExitCodesFromStatusCodes) {
  EXPECT_EQ(ExitCodeFor(StatusCode::kOk), ExitCode::kOk);
  EXPECT_EQ(ExitCodeFor(StatusCode::kInvalidInput), ExitCode::kBadInput);
  EXPECT_EQ(ExitCodeFor(StatusCode::kNotFound), ExitCode::kBadInput);
  EXPECT_EQ(ExitCodeFor(StatusCode::kUnavailable), ExitCode::kBadInput);
  EXPECT_EQ(ExitCodeFor(StatusCode::kResourceLimit), ExitCode::kBadInput);
  EXPECT_EQ(ExitCodeFor(StatusCode::kInternal), ExitCode::kInternal);
}

TEST(CliCommonTest, NormalizesDashedSpellingsOfKnownFlags) {
  CLI::App app;
  std::string range;
  CLI::App* sub = app.add_subcommand("summary");
  sub->add_option("--time_range", range);
  std::vector<std::string> out = NormalizeFlagSpellings(
      app, {"summary", "--time-range", "1s:2s", "--time-range=3s:", "--no-such-flag", "--", "--time-range"});
  EXPECT_EQ(out, (std::vector<std::string>{"summary", "--time_range", "1s:2s", "--time_range=3s:", "--no-such-flag",
                                           "--", "--time-range"}));
}

TEST(CliCommonTest, EveryRegisteredLongFlagUsesUnderscores) {
  CLI::App app;
  std::vector<Command> commands = AddAllCommands(app);
  ASSERT_FALSE(commands.empty());
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    for (const CLI::Option* opt : sub->get_options()) {
      for (const std::string& name : opt->get_lnames()) {
        EXPECT_EQ(name.find('-'), std::string::npos) << sub->get_name() << " --" << name;
      }
    }
  }
}

TEST(CliCommonTest, OutputFormatChoice) {
  static constexpr std::string_view kFormats[] = {"text", "json"};
  auto resolve = [&](OutputOptions o) { return ResolveOutputFormat(o, kFormats, "text"); };
  EXPECT_EQ(*resolve({}), "text");
  EXPECT_EQ(*resolve({.format = "json"}), "json");
  EXPECT_EQ(*resolve({.json = true}), "json");
  EXPECT_EQ(*resolve({.output = "out/report.json"}), "json");
  EXPECT_EQ(*resolve({.output = "report.txt"}), "text");
  EXPECT_EQ(*resolve({.format = "text", .output = "report.json"}), "text");  // --format wins
  // No extension: the default, as the help says (-o /dev/stdout, -o summary were refused).
  EXPECT_EQ(*resolve({.output = "/dev/stdout"}), "text");
  EXPECT_EQ(*resolve({.output = "out.d/summary"}), "text");
  EXPECT_FALSE(resolve({.format = "yaml"}).ok());
  EXPECT_FALSE(resolve({.format = "text", .json = true}).ok());
  StatusOr<std::string> bad = resolve({.output = "report.html"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidInput);
  EXPECT_NE(bad.status().message().find("report.html"), std::string::npos);
}

// --format's help names the format each command falls back to (it said "else text" for
// diagnose and recommend-runtime, which write YAML, and generate-plan, which writes Markdown).
TEST(CliCommonTest, FormatHelpNamesEachCommandsOwnDefault) {
  const std::pair<const char*, const char*> kDefaults[] = {
      {"diagnose", "yaml"}, {"recommend-runtime", "yaml"}, {"generate-plan", "md"}, {"summary", "text"}};
  for (const auto& [cmd, format] : kDefaults) {
    cli_test::Result r = cli_test::RunArgs({cmd, "--help"});
    ASSERT_EQ(r.code, 0) << cmd;
    EXPECT_NE(r.out.find(std::string("extension, else ") + format + ")"), std::string::npos) << cmd << "\n"
                                                                                             << r.out;
  }
}

TEST(CliCommonTest, JsonDocumentsCarrySchemaVersion) {
  nlohmann::ordered_json doc = NewJsonDocument("x");
  EXPECT_EQ(doc["schema_version"], kSchemaVersion);
  EXPECT_EQ(DumpJson(doc).back(), '\n');
}

TEST(CliCommonTest, ErrorsAreOneLine) {
  EXPECT_EQ(FormatError(InvalidInput("a\nb")), "cann-profiler: error: a b");
}

TEST(CliCommonTest, TopMustBeAPositiveIntegerAndSaysSo) {
  for (const char* bad : {"0", "abc", "-1", "2.5", ""}) {
    for (std::vector<std::string> args : {std::vector<std::string>{"summary", "t.json", "--top", bad},
                                          std::vector<std::string>{"compare", "--baseline", "a.json", "--target",
                                                                   "b.json", "--top", bad}}) {
      cli_test::Result r = cli_test::RunArgs(args);
      EXPECT_EQ(r.code, 2) << args[0] << " " << bad;
      EXPECT_NE(r.err.find(std::string("--top: must be a positive integer, got '") + bad + "'"), std::string::npos)
          << r.err;
      EXPECT_LT(r.err.size(), 120u) << r.err;  // not DBL_MAX's 300 digits
    }
  }
}

}  // namespace
}  // namespace cprof::cli
