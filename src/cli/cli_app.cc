// Builds the root app from the subcommands, parses, runs, and maps the outcome to an exit code.
#include "cli/cli_app.h"

#include <algorithm>
#include <exception>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cli/cli_common.h"
#include "cli/commands.h"

namespace cprof::cli {

int RunCli(const std::vector<std::string>& given, std::ostream& out, std::ostream& err, std::string_view program) {
  // Installed under another name, the program is that subcommand: cann-auto-tune = tune.
  const bool auto_tune = program == "cann-auto-tune";
  // Errors name the program the user ran.
  const std::string_view name = auto_tune ? program : std::string_view("cann-profiler");
  std::vector<std::string> args = given;
  // `cann-auto-tune --version` is the program's version, not an option of tune.
  if (auto_tune && !(args.size() == 1 && args[0] == "--version")) args.insert(args.begin(), "tune");
  CLI::App app("cann-profiler: a performance profiler, advisor and tuner for AI workloads.\n"
               "Multi-word flags are documented with underscores (--time_range); dashes work too.",
               "cann-profiler");
  app.require_subcommand(1);
  app.set_version_flag("--version", "cann-profiler 0.1.0");
  std::vector<Command> commands = AddAllCommands(app);
  ImportFlags import_flags;
  for (Command& cmd : commands) {
    if (CommandImportsTraces(cmd.app->get_name())) AddImportFlags(cmd.app, &import_flags);
  }

  // The command after `--` is the target's, word for word, so CLI11 never sees it: it read
  // "[64,128]" as the list 64 128 and "[]" as nothing, and after `--env A=B` took a target's
  // `--layers` for an option. The words are given to the subcommand's `command` after parsing.
  // Other subcommands keep CLI11's `--` (`diagnose -- -odd-name.json`).
  std::optional<std::vector<std::string>> after_dashes;
  const bool runs_a_command = !args.empty() && std::any_of(commands.begin(), commands.end(), [&](const Command& c) {
    return c.app->get_name() == args[0] && c.app->get_option_no_throw("command") != nullptr;
  });
  if (auto dashes = std::find(args.begin(), args.end(), "--"); runs_a_command && dashes != args.end()) {
    after_dashes.emplace(dashes + 1, args.end());
    args.erase(dashes + 1, args.end());
  }
  std::vector<std::string> argv = NormalizeFlagSpellings(app, args);
  std::reverse(argv.begin(), argv.end());  // CLI11 takes the arguments in reverse order
  try {
    app.parse(argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {  // --help, --version
      if (CLI::App* tune = app.get_subcommand("tune"); auto_tune && dynamic_cast<const CLI::CallForHelp*>(&e)) {
        // "Usage: cann-auto-tune [OPTIONS]", not "cann-profiler tune", which is not what was run.
        out << tune->get_formatter()->make_help(tune, std::string(program), CLI::AppFormatMode::Normal);
        return static_cast<int>(ExitCode::kOk);
      }
      app.exit(e, out, err);
      return static_cast<int>(ExitCode::kOk);
    }
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    if (dynamic_cast<const CLI::ExtrasError*>(&e) != nullptr) {
      // CLI11 says "The following arguments were not expected: b.pb --", naming the `--` that
      // only ended the options (`summary -- a.pb b.pb`); name the words alone, as typed.
      std::vector<std::string> words;
      for (const std::string& w : app.remaining(true))
        if (w != "--") words.push_back("'" + w + "'");
      if (!words.empty())
        what = fmt::format("unexpected {} {}", words.size() == 1 ? "argument" : "arguments", fmt::join(words, " "));
    }
    err << name << ": error: " << what << " (see --help)\n";
    return static_cast<int>(ExitCode::kBadInput);
  }

  if (after_dashes) {
    for (CLI::App* sub : app.get_subcommands()) {
      CLI::Option* command = sub->get_option_no_throw("command");
      if (command == nullptr) continue;
      // A word before `--` (`cann-auto-tune tune --space s -- ./bench {x}`: tune is implied).
      if (command->count() > 0) {
        std::vector<std::string> words;
        for (const std::string& w : command->results()) words.push_back("'" + w + "'");
        err << fmt::format("{}: error: unexpected {} {} before `--`: options go before `--`, the command to "
                           "run after it (see --help)\n",
                           name, words.size() == 1 ? "word" : "words", fmt::join(words, " "));
        return static_cast<int>(ExitCode::kBadInput);
      }
      if (after_dashes->empty()) continue;
      try {
        command->allow_extra_args(false);  // as given: no "[a,b]" lists
        command->add_result(*after_dashes);
        command->run_callback();
      } catch (const CLI::Error& e) {
        err << name << ": error: " << e.what() << " (see --help)\n";
        return static_cast<int>(ExitCode::kBadInput);
      }
    }
  }

  CommandContext ctx{out, err};
  StatusOr<ImportOptions> import = ResolveImportFlags(import_flags);
  if (!import.ok()) {
    err << FormatError(import.status(), name) << "\n";
    return static_cast<int>(ExitCodeFor(import.status().code()));
  }
  ctx.import = *import;
  for (Command& cmd : commands) {
    if (!cmd.app->parsed()) continue;
    try {
      CommandResult result = cmd.run(ctx);
      if (!result.ok()) {
        err << FormatError(result.status(), name) << "\n";
        return static_cast<int>(ExitCodeFor(result.status().code()));
      }
      return static_cast<int>(*result);
    } catch (const std::exception& e) {
      err << name << ": internal error: " << e.what() << "\n";
      return static_cast<int>(ExitCode::kInternal);
    }
  }
  err << name << ": error: no command given (see --help)\n";
  return static_cast<int>(ExitCode::kBadInput);
}

}  // namespace cprof::cli
