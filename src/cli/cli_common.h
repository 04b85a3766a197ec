// What every cann-profiler subcommand shares: exit codes (mapped from StatusCode in one place),
// flag-spelling normalization (`--time-range` == `--time_range`), the output format choice
// (`--format`, else the `--output` extension; `--json` = `--format json`), writing output, and
// the JSON document header with `schema_version`.
//
// A subcommand lives in its own file and registers itself with one function:
//
//   Command AddSummaryCommand(CLI::App& root);   // adds "summary", returns how to run it
//
// Commands never print directly: they write to the streams in CommandContext, so tests can run
// them in-process with RunCli (cli_app.h).
#pragma once

#include <functional>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "base/status.h"
#include "import/trace_reader.h"

namespace cprof::cli {

// Version of every machine-readable output's layout; bump on incompatible changes.
inline constexpr int kSchemaVersion = 1;

enum class ExitCode : int {
  kOk = 0,
  kVerdictFailed = 1,  // the command ran and its check failed (a regression, a trigger)
  kBadInput = 2,       // bad input or usage
  kInternal = 3,       // a bug or an unexpected system failure
};
// The one mapping from error codes to exit codes.
ExitCode ExitCodeFor(StatusCode code);

struct CommandContext {
  std::ostream& out;  // results
  std::ostream& err;  // diagnostics
  // Limits for every trace the command imports (--max_memory, --max_gzip_ratio); RunCli fills it.
  ImportOptions import{};
};

// A successful run's exit code (kOk or kVerdictFailed), or the error.
using CommandResult = StatusOr<ExitCode>;

struct Command {
  CLI::App* app = nullptr;  // owned by the root app
  std::function<CommandResult(CommandContext&)> run;
};

// Rewrites `--multi-word[=v]` into `--multi_word[=v]` when `--multi_word` is an option of `app`
// or of any of its subcommands, so both spellings work for every flag, present and future.
// Arguments after a bare `--` are left alone (they belong to a target command).
std::vector<std::string> NormalizeFlagSpellings(const CLI::App& app, std::vector<std::string> args);

// --format / --output / --json, shared by commands that write a report.
struct OutputOptions {
  std::string format{};  // empty: from the --output extension, else the command's default
  std::string output{};  // empty: stdout
  bool json = false;
};
// `default_format` is only named in the help: pass ResolveOutputFormat the same one.
void AddOutputOptions(CLI::App* cmd, OutputOptions* options, std::string_view formats_help,
                      std::string_view default_format = "text");

// The chosen format, one of `allowed` (e.g. {"text", "json"}). kInvalidInput when --format is
// not allowed, when --json contradicts --format, or when the --output extension says nothing.
StatusOr<std::string> ResolveOutputFormat(const OutputOptions& options,
                                          std::span<const std::string_view> allowed,
                                          std::string_view default_format);

// Writes `text` to --output atomically (nothing is left behind on failure), or to ctx.out.
Status WriteOutput(const OutputOptions& options, std::string_view text, CommandContext& ctx);

// A check for count flags (--top): passes "1", "25"; rejects "0", "-1", "abc", "2.5" with
// "--top: must be a positive integer, got '0'" (CLI11's own range check prints DBL_MAX in full).
CLI::Validator PositiveInteger();
CLI::Validator NonNegativeInteger();  // 0 allowed; no sign, no overflow

// --max_memory and --max_gzip_ratio: RunCli adds them to every command that imports a trace
// (CommandImportsTraces in commands.h) and turns them into CommandContext::import.
struct ImportFlags {
  std::string max_memory{};  // "4G", "512M", "0" (no limit); empty: half the physical RAM
  uint64_t max_gzip_ratio = DecompressionLimits{}.max_ratio;
};
void AddImportFlags(CLI::App* cmd, ImportFlags* flags);
StatusOr<ImportOptions> ResolveImportFlags(const ImportFlags& flags);

// A new JSON document: {"schema_version": kSchemaVersion, "kind": kind}.
nlohmann::ordered_json NewJsonDocument(std::string_view kind);

// JSON text of a document: 2-space indent, UTF-8 errors replaced (names from traces may be
// invalid UTF-8), newline at the end.
std::string DumpJson(const nlohmann::ordered_json& doc);

// A one-line error for the terminal: "cann-profiler: error: <message>" (newlines flattened);
// `program` is the name the user ran (cann-auto-tune).
std::string FormatError(const Status& status, std::string_view program = "cann-profiler");

}  // namespace cprof::cli

namespace cprof {
struct Trace;
}

namespace cprof::cli {

// Imports a trace for a command, within `options` (pass CommandContext::import); the error
// always names the file.
StatusOr<Trace> LoadTrace(const std::string& path, const ImportOptions& options = {});

}  // namespace cprof::cli
