// `cann-profiler trace`: runs a workload (or attaches to one) and writes a full-stack trace:
// PyTorch operators, CPU samples with stacks, /proc metrics, SDK spans, Python GC/DataLoader.
//
//   cann-profiler trace --target "python3 train.py" --output run.pb
//   cann-profiler trace --duration 30s --kill term -- ./server --threads 8
//   cann-profiler trace --pid 4242 --duration 10s
//
// The exit code is the target's once the trace is written (128+N if signal N killed it).
#include <fmt/format.h>

#include <csignal>
#include <string_view>
#include <utility>

#include "base/atomic_file.h"
#include "base/time_units.h"
#include "cli/commands.h"
#include "collect/collector.h"
#include "collect/command_line.h"
#include "collect/target_process.h"
#include "export/export_trace.h"
#include "model/trace.h"
#include "stats/metric_registry.h"

namespace cprof::cli {
namespace {

struct TraceOptions {
  std::string target;
  std::vector<std::string> command;  // after `--`
  int pid = 0;
  std::string scope = "full_stack";
  std::string metrics;
  std::string sampling_rate = "100%";
  std::string duration;
  std::string kill = "none";  // signal for a target still running after --duration
  std::string time_range;
  std::vector<std::string> triggers;
  std::string output = "trace.pb";
  std::string format;
};

StatusOr<CollectOptions> BuildOptions(const TraceOptions& t, CommandContext& ctx) {
  CollectOptions o;
  int targets = (!t.target.empty()) + (!t.command.empty()) + (t.pid != 0);
  if (targets != 1) {
    return InvalidInput("trace: give exactly one target: --target \"CMD ARGS\", -- CMD ARGS, or --pid PID");
  }
  if (!t.target.empty()) {
    ASSIGN_OR_RETURN(o.argv, SplitCommandLine(t.target));
  } else if (!t.command.empty()) {
    o.argv = t.command;
  } else {
    if (t.pid < 0) return InvalidInput("--pid: {} is not a process id", t.pid);
    o.attach_pid = t.pid;
  }
  ASSIGN_OR_RETURN(o.scope, ParseCollectScope(t.scope));
  ASSIGN_OR_RETURN(o.sampling, ParseSamplingRate(t.sampling_rate));
  if (!t.metrics.empty()) {
    ASSIGN_OR_RETURN(std::vector<const MetricInfo*> metrics, MetricRegistry::Default().FindAll(t.metrics));
    for (const MetricInfo* m : metrics) {
      if (m->source == MetricSource::kPmu) o.require_hardware_counters = true;
    }
  }
  if (!t.duration.empty()) {
    StatusOr<TimeNs> parsed = ParseDuration(t.duration);
    if (!parsed.ok()) return parsed.status().WithContext("--duration");
    const TimeNs d = *parsed;
    if (d <= 0) return InvalidInput("--duration: '{}' must be positive", t.duration);
    o.duration_ns = d;
  }
  if (!t.time_range.empty()) {
    StatusOr<TimeRange> range = ParseTimeRange(t.time_range);
    if (!range.ok()) return range.status().WithContext("--time_range");
    o.time_range = *range;
  }
  for (const std::string& text : t.triggers) {
    ASSIGN_OR_RETURN(TriggerSpec spec, ParseTrigger(text));
    o.triggers.push_back(std::move(spec));
  }
  std::ostream* err = &ctx.err;
  o.warn = [err](std::string_view m) { *err << "cann-profiler: warning: " << m << "\n" << std::flush; };
  return o;
}

// trace.pb -> trace.trigger2.pb
std::string TriggerOutputPath(const std::string& output, int index) {
  size_t slash = output.rfind('/');
  size_t dot = output.find('.', slash == std::string::npos ? 0 : slash + 1);
  std::string suffix = ".trigger" + std::to_string(index);
  if (dot == std::string::npos) return output + suffix;
  return output.substr(0, dot) + suffix + output.substr(dot);
}

// --kill: the signal for a target still running after --duration; 0 for none.
StatusOr<int> ParseKillSignal(const TraceOptions& t) {
  static constexpr std::pair<std::string_view, int> kSignals[] = {
      {"none", 0}, {"term", SIGTERM}, {"int", SIGINT}, {"kill", SIGKILL}};
  for (auto [name, sig] : kSignals) {
    if (t.kill != name) continue;
    if (sig != 0 && t.duration.empty()) return InvalidInput("--kill {}: only with --duration", t.kill);
    if (sig != 0 && t.pid != 0) return InvalidInput("--kill {}: trace signals only a target it started, not --pid", t.kill);
    return sig;
  }
  return InvalidInput("--kill: unknown signal '{}' (none, term, int, kill)", t.kill);
}

CommandResult RunTrace(const TraceOptions& t, CommandContext& ctx) {
  ASSIGN_OR_RETURN(CollectOptions o, BuildOptions(t, ctx));
  ASSIGN_OR_RETURN(const int kill_signal, ParseKillSignal(t));
  ExportFormat format;
  if (!t.format.empty()) {
    std::optional<ExportFormat> f = ExportFormatFromName(t.format);
    if (!f) return InvalidInput("--format: unknown trace format '{}' (pb, json)", t.format);
    format = *f;
  } else {
    ASSIGN_OR_RETURN(format, ExportFormatFromPath(t.output));
  }

  if (!o.triggers.empty()) {
    o.on_trigger_trace = [&](const Trace& trace, const TriggerFiring& firing, int index) -> Status {
      std::string path = TriggerOutputPath(t.output, index);
      RETURN_IF_ERROR(ExportTrace(trace, path, format));
      ctx.err << fmt::format("cann-profiler: trigger '{}' fired: {}; trace written to {}\n",
                             o.triggers[firing.trigger].text, firing.reason, path);
      if (std::string lost = ExportLossNote(trace, path, format); !lost.empty())
        ctx.err << "cann-profiler: warning: " << lost << "\n";
      ctx.err << std::flush;
      return Status::Ok();
    };
  }

  // A collection can run for hours: learn now, not after it, that its trace cannot be written.
  RETURN_IF_ERROR(CheckCanCreate(o.triggers.empty() ? t.output : TriggerOutputPath(t.output, 1)));

  ASSIGN_OR_RETURN(std::unique_ptr<Collection> collection, Collection::Start(o));
  StatusOr<Trace> trace = collection->Run();
  // What was collected is in memory (and trigger traces are written): stop the target if asked.
  if (kill_signal != 0 && collection->duration_reached()) collection->SignalTarget(kill_signal);
  if (!trace.ok()) {
    collection->WaitForTarget();
    return trace.status();
  }
  if (!o.triggers.empty()) {
    if (collection->triggers_fired() == 0) {
      ctx.err << "cann-profiler: no trigger fired; no trace written; target " << collection->ExitDescription()
              << "\n";
    }
    return static_cast<ExitCode>(collection->WaitForTarget());
  }
  Status written = ExportTrace(*trace, t.output, format);
  if (!written.ok()) {
    collection->WaitForTarget();
    return written;
  }
  ctx.err << fmt::format("cann-profiler: trace written to {} ({} slices, {} samples, {} counter values); target {}{}\n",
                         t.output, trace->slices.size(), trace->samples.size(), trace->counters.size(),
                         collection->ExitDescription(),
                         kill_signal != 0 && collection->duration_reached() ? " (sent --kill " + t.kill + ")" : "");
  if (std::string lost = ExportLossNote(*trace, t.output, format); !lost.empty())
    ctx.err << "cann-profiler: warning: " << lost << "\n";
  // A window that starts after the run ended keeps nothing: an empty trace said nothing of why.
  if (const std::string started = trace->MetadataText("target_start_ns"); o.time_range.start && !started.empty()) {
    const TimeNs ran = MonotonicNowNs() - std::stoll(started);
    if (*o.time_range.start >= ran)
      ctx.err << fmt::format("cann-profiler: warning: --time_range starts at {}, after the run's {}: the trace holds "
                             "nothing of it\n",
                             FormatDuration(*o.time_range.start), FormatDuration(ran));
  }
  int code = collection->WaitForTarget();
  // The target's own exit code, whatever it is (not one of ours).
  return static_cast<ExitCode>(code);
}

}  // namespace

Command AddTraceCommand(CLI::App& root) {
  auto o = std::make_shared<TraceOptions>();
  CLI::App* cmd = root.add_subcommand(
      "trace", "run a workload (or attach to one) and write a full-stack trace; exits with the target's code");
  cmd->add_option("--target", o->target, "the command to run, as one string: \"python3 train.py --lr 0.1\"");
  cmd->add_option("--pid", o->pid, "attach to a running process (CPU samples and /proc only)");
  cmd->add_option("--scope", o->scope, "full_stack (default), framework, host or hardware_only");
  cmd->add_option("--metrics", o->metrics,
                  "metrics that must be collected, comma-separated (see `cann-profiler metrics`); "
                  "an unknown or unavailable one is an error");
  cmd->add_option("--sampling_rate", o->sampling_rate,
                  "CPU sampling frequency (\"500Hz\"), or a share (\"50%\") of both the framework's operators kept "
                  "and the default 99 Hz of CPU sampling (\"100%\", the default: every operator, 99 Hz); the "
                  "share is the trace's metadata op_event_fraction");
  cmd->add_option("--duration", o->duration,
                  "stop collecting after this long (\"300s\"); the target keeps running unless --kill");
  cmd->add_option("--kill", o->kill,
                  "after --duration, send this signal to a target still running: none (the default: wait "
                  "for it to exit), term, int or kill");
  cmd->add_option("--time_range", o->time_range, "keep only START:END from the target's start (\"10s:20s\")");
  cmd->add_option("--trigger", o->triggers,
                  "write a trace only when the expression holds (\"p99_latency>200ms\"); repeatable");
  cmd->add_option("--output,-o", o->output, "trace file to write (default trace.pb; .json for Chrome JSON)");
  cmd->add_option("--format", o->format, "pb or json (default: from the --output extension)");
  cmd->add_option("command", o->command, "the command to run, after `--`")->expected(-1);
  return {cmd, [o](CommandContext& ctx) { return RunTrace(*o, ctx); }};
}

}  // namespace cprof::cli
