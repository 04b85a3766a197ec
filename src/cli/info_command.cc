// `cann-profiler info TRACE [--json]`: what a trace file is: its format, size, time span, how
// many rows each table holds, and its metadata.
#include <algorithm>
#include <filesystem>
#include <system_error>

#include <fmt/format.h>

#include "base/time_units.h"
#include "cli/commands.h"
#include "cli/json_values.h"
#include "import/trace_format.h"
#include "model/trace.h"

namespace cprof::cli {
namespace {

struct InfoOptions {
  std::string trace;
  OutputOptions output;
};

// Bytes of a file, or of every file under a folder (torch_npu *_ascend_pt folders).
int64_t SizeOnDisk(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return static_cast<int64_t>(std::filesystem::file_size(path, ec));
  int64_t total = 0;
  for (auto it = std::filesystem::recursive_directory_iterator(path, ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->is_regular_file(ec)) total += static_cast<int64_t>(it->file_size(ec));
  }
  return total;
}

std::vector<std::pair<std::string, size_t>> TableCounts(const Trace& t) {
  return {{"tracks", t.tracks.size()},   {"slices", t.slices.size()},
          {"flows", t.flows.size()},     {"counters", t.counters.size()},
          {"memory_events", t.memory_events.size()}, {"samples", t.samples.size()},
          {"stacks", t.stacks.size()},   {"frames", t.frames.size()},
          {"args", t.args.size()},       {"metadata", t.metadata.size()},
          {"strings", t.strings.size()}};
}

CommandResult RunInfo(const InfoOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"text", "json"};
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(o.output, kFormats, "text"));
  ASSIGN_OR_RETURN(TraceFormat detected, DetectTraceFormat(o.trace));
  ASSIGN_OR_RETURN(Trace trace, LoadTrace(o.trace, ctx.import));
  int64_t size = SizeOnDisk(o.trace);
  std::string source_format = trace.MetadataText(meta::kSourceFormat);
  std::string text;
  if (format == "json") {
    nlohmann::ordered_json doc = NewJsonDocument("info");
    doc["path"] = o.trace;
    doc["format"] = TraceFormatName(detected);
    doc["source_format"] = source_format;
    doc["size_bytes"] = size;
    doc["start_ns"] = trace.start_ns;
    doc["end_ns"] = trace.end_ns;
    doc["duration_ns"] = trace.end_ns - trace.start_ns;
    nlohmann::ordered_json tables = nlohmann::ordered_json::object();
    for (const auto& [name, n] : TableCounts(trace)) tables[name] = n;
    doc["tables"] = tables;
    doc["metadata"] = MetadataToJson(trace);
    text = DumpJson(doc);
  } else {
    text += fmt::format("path        {}\n", o.trace);
    text += fmt::format("format      {}{}\n", TraceFormatName(detected),
                        source_format.empty() ? "" : " (" + source_format + ")");
    text += fmt::format("size        {} bytes\n", size);
    text += fmt::format("time span   {} (start {} ns, end {} ns)\n", FormatDuration(trace.end_ns - trace.start_ns),
                        trace.start_ns, trace.end_ns);
    text += "tables\n";
    for (const auto& [name, n] : TableCounts(trace)) text += fmt::format("  {:<14}{}\n", name, n);
    if (trace.metadata.size() > 0) text += "metadata\n";
    nlohmann::ordered_json metadata = MetadataToJson(trace);
    size_t width = 14;
    for (const auto& [key, value] : metadata.items()) width = std::max(width, key.size() + 2);
    for (const auto& [key, value] : metadata.items()) {
      std::string v = value.is_string() ? value.get<std::string>() : value.dump();
      if (v.size() > 100) v = v.substr(0, 97) + "...";
      text += fmt::format("  {:<{}}{}\n", key, width, v);
    }
  }
  RETURN_IF_ERROR(WriteOutput(o.output, text, ctx));
  return ExitCode::kOk;
}

}  // namespace

Command AddInfoCommand(CLI::App& root) {
  auto o = std::make_shared<InfoOptions>();
  CLI::App* cmd = root.add_subcommand("info", "format, size, time span, table sizes and metadata of a trace");
  cmd->add_option("trace", o->trace, "trace file or folder")->required();
  AddOutputOptions(cmd, &o->output, "text, json");
  return {cmd, [o](CommandContext& ctx) { return RunInfo(*o, ctx); }};
}

}  // namespace cprof::cli
