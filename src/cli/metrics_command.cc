// `cann-profiler metrics [NAMES] [--json]`: the metric registry — every metric `--metrics`,
// `--trigger`, `--threshold` and `--objective` accept, its unit, its source and whether this
// machine can measure it. With NAMES (comma-separated), checks them: an unknown one is an error
// (exit 2) that lists the available ones; one this machine cannot measure is shown with the reason
// and the check fails (exit 1), so that `metrics cache_miss && ...` can gate a script.
#include <fmt/format.h>

#include "cli/commands.h"
#include "stats/metric_registry.h"

namespace cprof::cli {
namespace {

struct MetricsOptions {
  std::string names;
  OutputOptions output;
};

CommandResult RunMetrics(const MetricsOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"text", "json"};
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(o.output, kFormats, "text"));
  const MetricRegistry& registry = MetricRegistry::Default();
  std::vector<const MetricInfo*> shown;
  if (!o.names.empty()) {
    ASSIGN_OR_RETURN(shown, registry.FindAll(o.names, /*include_unavailable=*/true));
  } else {
    for (const MetricInfo& m : registry.all()) shown.push_back(&m);
  }
  std::string text;
  if (format == "json") {
    nlohmann::ordered_json doc = NewJsonDocument("metrics");
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const MetricInfo* m : shown) {
      nlohmann::ordered_json j = {{"name", m->name},
                                  {"unit", m->unit},
                                  {"source", MetricSourceName(m->source)},
                                  {"better", m->direction == MetricDirection::kLowerIsBetter ? "lower" : "higher"},
                                  {"available", m->available},
                                  {"description", m->description}};
      if (!m->available) j["unavailable_reason"] = m->unavailable_reason;
      list.push_back(j);
    }
    doc["metrics"] = list;
    text = DumpJson(doc);
  } else {
    text += fmt::format("{:<14} {:<8} {:<9} {:<10} {}\n", "metric", "unit", "source", "available", "description");
    for (const MetricInfo* m : shown) {
      text += fmt::format("{:<14} {:<8} {:<9} {:<10} {}\n", m->name, m->unit, MetricSourceName(m->source),
                          m->available ? "yes" : "no", m->description);
      if (!m->available) text += fmt::format("{:<44} ({})\n", "", m->unavailable_reason);
    }
  }
  RETURN_IF_ERROR(WriteOutput(o.output, text, ctx));
  if (o.names.empty()) return ExitCode::kOk;
  for (const MetricInfo* m : shown)
    if (!m->available) {
      ctx.err << fmt::format("cann-profiler: metric '{}' cannot be measured on this machine ({})\n", m->name,
                             m->unavailable_reason);
      return ExitCode::kVerdictFailed;
    }
  return ExitCode::kOk;
}

}  // namespace

Command AddMetricsCommand(CLI::App& root) {
  auto o = std::make_shared<MetricsOptions>();
  CLI::App* cmd = root.add_subcommand("metrics", "list the metrics commands accept, and which this machine can measure");
  cmd->add_option("names", o->names, "comma-separated metric names to check (default: list all)");
  AddOutputOptions(cmd, &o->output, "text, json");
  return {cmd, [o](CommandContext& ctx) { return RunMetrics(*o, ctx); }};
}

}  // namespace cprof::cli
