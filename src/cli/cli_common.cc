// Shared CLI plumbing: exit codes, flag spellings, output format choice and writing.
#include "cli/cli_common.h"

#include <algorithm>
#include <charconv>
#include <set>

#include "base/atomic_file.h"

namespace cprof::cli {
namespace {

void CollectLongNames(const CLI::App& app, std::set<std::string>* names) {
  for (const CLI::Option* opt : app.get_options()) {
    for (const std::string& n : opt->get_lnames()) names->insert(n);
  }
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    CollectLongNames(*sub, names);
  }
}

std::string_view Extension(std::string_view path) {
  size_t slash = path.find_last_of('/');
  std::string_view base = slash == std::string_view::npos ? path : path.substr(slash + 1);
  size_t dot = base.find_last_of('.');
  return dot == std::string_view::npos ? std::string_view() : base.substr(dot + 1);
}

std::string Join(std::span<const std::string_view> items) {
  std::string out;
  for (std::string_view s : items) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

}  // namespace

ExitCode ExitCodeFor(StatusCode code) {
  switch (code) {
    case StatusCode::kOk: return ExitCode::kOk;
    case StatusCode::kInvalidInput:
    case StatusCode::kNotFound:
    case StatusCode::kUnavailable:
    case StatusCode::kResourceLimit: return ExitCode::kBadInput;
    case StatusCode::kInternal: return ExitCode::kInternal;
  }
  return ExitCode::kInternal;
}

std::vector<std::string> NormalizeFlagSpellings(const CLI::App& app, std::vector<std::string> args) {
  std::set<std::string> names;
  CollectLongNames(app, &names);
  for (std::string& arg : args) {
    if (arg == "--") break;
    if (arg.size() <= 2 || !arg.starts_with("--")) continue;
    size_t eq = arg.find('=');
    std::string name = arg.substr(2, eq == std::string::npos ? std::string::npos : eq - 2);
    if (name.find('-') == std::string::npos) continue;
    std::string underscored = name;
    std::replace(underscored.begin(), underscored.end(), '-', '_');
    if (names.count(underscored) == 0) continue;
    arg = "--" + underscored + (eq == std::string::npos ? std::string() : arg.substr(eq));
  }
  return args;
}

void AddOutputOptions(CLI::App* cmd, OutputOptions* o, std::string_view formats_help,
                      std::string_view default_format) {
  cmd->add_option("--format", o->format,
                  fmt::format("output format: {} (default: from --output's extension, else {})", formats_help,
                              default_format));
  cmd->add_option("--output,-o", o->output, "write the result to this file (atomically) instead of stdout");
  cmd->add_flag("--json", o->json, "same as --format json");
}

StatusOr<std::string> ResolveOutputFormat(const OutputOptions& o, std::span<const std::string_view> allowed,
                                          std::string_view default_format) {
  auto is_allowed = [&](std::string_view f) {
    return std::find(allowed.begin(), allowed.end(), f) != allowed.end();
  };
  if (o.json && !o.format.empty() && o.format != "json") {
    return InvalidInput("--json contradicts --format {}", o.format);
  }
  if (o.json) {
    if (!is_allowed("json")) return InvalidInput("--json is not supported here; formats: {}", Join(allowed));
    return std::string("json");
  }
  if (!o.format.empty()) {
    if (!is_allowed(o.format)) return InvalidInput("unknown --format '{}'; formats: {}", o.format, Join(allowed));
    return o.format;
  }
  if (!o.output.empty()) {
    std::string_view ext = Extension(o.output);
    // No extension (`-o /dev/stdout`, `-o summary`): the command's default, as with no --output.
    if (ext.empty()) return std::string(default_format);
    std::string fmt = ext == "txt" ? "text" : std::string(ext);
    if (!is_allowed(fmt)) {
      return InvalidInput("cannot tell the output format from '{}' (extension '{}'); use --format ({})", o.output,
                          ext, Join(allowed));
    }
    return fmt;
  }
  return std::string(default_format);
}

Status WriteOutput(const OutputOptions& o, std::string_view text, CommandContext& ctx) {
  if (o.output.empty()) {
    ctx.out << text;
    ctx.out.flush();
    return ctx.out ? Status::Ok() : Internal("writing to stdout failed");
  }
  return WriteFileAtomically(o.output, text);
}

nlohmann::ordered_json NewJsonDocument(std::string_view kind) {
  nlohmann::ordered_json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["kind"] = kind;
  return doc;
}

std::string DumpJson(const nlohmann::ordered_json& doc) {
  return doc.dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::string FormatError(const Status& status, std::string_view program) {
  std::string msg = status.message();
  std::replace(msg.begin(), msg.end(), '\n', ' ');
  std::replace(msg.begin(), msg.end(), '\r', ' ');
  return std::string(program) + ": error: " + msg;
}

namespace {

// A whole number in uint64_t of at least `least`: CLI11 alone would wrap "-3" or clamp "1e30".
CLI::Validator UnsignedAtLeast(uint64_t least, std::string what, std::string name) {
  return CLI::Validator(
      [least, what](std::string& text) -> std::string {
        uint64_t v = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc() && end == text.data() + text.size() && v >= least) return "";
        return fmt::format("must be {}, got '{}'", what, text);
      },
      std::move(name));
}

}  // namespace

CLI::Validator PositiveInteger() { return UnsignedAtLeast(1, "a positive integer", "POSITIVE"); }
CLI::Validator NonNegativeInteger() { return UnsignedAtLeast(0, "a whole number, 0 or more", "NONNEGATIVE"); }

}  // namespace cprof::cli

#include "import/import_memory.h"
#include "import/import_trace.h"

namespace cprof::cli {

void AddImportFlags(CLI::App* cmd, ImportFlags* flags) {
  cmd->add_option("--max_memory", flags->max_memory,
                  "Fail the import cleanly once the trace holds more than this much memory, e.g. 4G or 512M "
                  "(binary units; 0 = no limit). Default: half the physical RAM");
  cmd->add_option("--max_gzip_ratio", flags->max_gzip_ratio,
                  "Reject .gz input that expands more than this many times (a decompression bomb; 0 = no limit)")
      ->capture_default_str()
      ->check(NonNegativeInteger());
}

StatusOr<ImportOptions> ResolveImportFlags(const ImportFlags& flags) {
  ImportOptions options;
  if (flags.max_memory.empty()) {
    options.max_memory_bytes = DefaultMaxMemoryBytes();
  } else {
    StatusOr<uint64_t> bytes = ParseByteSize(flags.max_memory);
    if (!bytes.ok()) return InvalidInput("--max_memory: {}; 0 means no limit", bytes.status().message());
    options.max_memory_bytes = *bytes;
  }
  options.decompression.max_ratio = flags.max_gzip_ratio;
  return options;
}

StatusOr<Trace> LoadTrace(const std::string& path, const ImportOptions& options) {
  StatusOr<Trace> trace = ImportTrace(path, options);
  if (!trace.ok() && trace.status().message().find(path) == std::string::npos) {
    return trace.status().WithContext(path);
  }
  return trace;
}

}  // namespace cprof::cli
