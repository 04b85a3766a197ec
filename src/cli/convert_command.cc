// `cann-profiler convert IN OUT [--format F]`: imports any supported trace and writes it in
// another format (from --format, else OUT's extension). OUT is written atomically: on any error
// nothing is left behind.
#include <fmt/format.h>

#include "cli/commands.h"
#include "export/export_trace.h"
#include "model/trace.h"

namespace cprof::cli {
namespace {

struct ConvertOptions {
  std::string input;
  std::string output;
  std::string format;
};

CommandResult RunConvert(const ConvertOptions& o, CommandContext& ctx) {
  ExportFormat format;
  if (!o.format.empty()) {
    std::optional<ExportFormat> f = ExportFormatFromName(o.format);
    if (!f) return InvalidInput("unknown --format '{}'; formats: pb (perfetto), json (chrome), sqlite", o.format);
    format = *f;
  } else {
    ASSIGN_OR_RETURN(format, ExportFormatFromPath(o.output));
  }
  ASSIGN_OR_RETURN(Trace trace, LoadTrace(o.input, ctx.import));
  RETURN_IF_ERROR(ExportTrace(trace, o.output, format));
  ctx.out << fmt::format("wrote {} ({}: {} tracks, {} slices, {} counters, {} flows)\n", o.output,
                         ExportFormatName(format), trace.tracks.size(), trace.slices.size(),
                         trace.counters.size(), trace.flows.size());
  if (std::string lost = ExportLossNote(trace, o.output, format); !lost.empty()) ctx.err << "convert: " << lost << "\n";
  return ExitCode::kOk;
}

}  // namespace

Command AddConvertCommand(CLI::App& root) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* cmd = root.add_subcommand("convert", "convert a trace to another format (.pb opens in ui.perfetto.dev)");
  cmd->add_option("input", o->input, "trace to read (any supported format)")->required();
  cmd->add_option("output", o->output, "file to write; the format comes from its extension (.pb, .json, .json.gz, .sqlite, .db)")
      ->required();
  cmd->add_option("--format", o->format, "output format: pb (perfetto), json (chrome) or sqlite; overrides the extension");
  return {cmd, [o](CommandContext& ctx) { return RunConvert(*o, ctx); }};
}

}  // namespace cprof::cli
