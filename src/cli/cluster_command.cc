// `cann-profiler cluster DIR... [--output cluster.json|.md] [--format json|md|text] [--full_trace]
// [--jobs N]`: loads every rank (torch_npu *_ascend_pt / msprof PROF_* results found under the
// given folders) in parallel and reports the per-rank step breakdown, the slow rank(s) with their
// statistical test and evidence, the straggler's cost per step, slow links and the communication
// matrix summary. By default it reads each rank's summary tables (step_trace_time.csv,
// communication*.json, the same inputs msprof-analyze uses); --full_trace imports every trace and
// recomputes the breakdown from it. Broken ranks are listed as unreadable; the run goes on. With
// --mpi (under mpirun) the processes of the MPI job share the loading (cli/cluster_mpi.h).
#include <chrono>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "analysis/cluster/rank_loader.h"
#include "cli/cluster_mpi.h"
#include "cli/cluster_render.h"
#include "cli/commands.h"
#include "import/ascend/ascend_layout.h"
#include "import/import_trace.h"

namespace cprof::cli {
namespace {

struct ClusterOptions {
  std::vector<std::string> dirs;
  OutputOptions output;
  bool full_trace = false;
  bool mpi = false;
  int jobs = 0;
};

CommandResult RunCluster(const ClusterOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"text", "md", "json"};
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(o.output, kFormats, "text"));
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::string> paths;
  std::vector<std::string> notes;  // printed by one process only under --mpi
  std::set<std::filesystem::path> seen;  // one folder named twice (or inside another input) is read once
  for (const std::string& d : o.dirs) {
    std::error_code ec;
    if (!std::filesystem::exists(d, ec)) return NotFound("{}: no such file or directory", d);
    std::vector<std::string> found = FindProfilerResults(d);
    if (found.empty()) {
      return InvalidInput("{}: no torch_npu (*_ascend_pt) or msprof (PROF_*) results in this folder or below", d);
    }
    for (std::string& p : found) {
      // A path that cannot be resolved stands for itself (an empty one would merge such inputs).
      std::filesystem::path canonical = std::filesystem::weakly_canonical(p, ec);
      if (ec || canonical.empty()) canonical = p;
      if (!seen.insert(canonical).second) {
        notes.push_back(p + " is among the inputs more than once; read once");
        continue;
      }
      paths.push_back(std::move(p));
    }
  }
  const bool full = o.full_trace;
  RankTraceLoader load = [full, import = ctx.import](const std::string& path) -> StatusOr<Trace> {
    ImportOptions opts = import;  // the limits apply to each rank's import
    opts.threads = 1;  // ranks are the unit of parallelism
    opts.summary_tables_only = !full;
    StatusOr<Trace> t = ImportTrace(path, opts);
    // A rank whose summary tables lack the step breakdown is read in full.
    if (!full && t.ok() && t->MetadataText("ascend_step_trace").empty()) {
      opts.summary_tables_only = false;
      t = ImportTrace(path, opts);
    }
    return t;
  };
  LoadedRanks loaded;
  int processes = 1;
  if (o.mpi) {
    ASSIGN_OR_RETURN(MpiLoad shared, LoadRankSummariesOverMpi(paths, load, /*prefer_trace_steps=*/full, o.jobs));
    if (shared.process != 0) return ExitCode::kOk;  // process 0 reports for the job
    loaded = std::move(*shared.all);
    processes = shared.processes;
    notes.push_back(fmt::format("{} inputs loaded by {} MPI processes", paths.size(), shared.processes));
  } else {
    loaded = LoadRankSummaries(paths, load, /*prefer_trace_steps=*/full, o.jobs);
  }
  for (const std::string& n : notes) ctx.err << "cann-profiler: note: " << n << "\n";
  ClusterReport report = AnalyzeCluster(std::move(loaded.ranks), std::move(loaded.unreadable));
  ClusterRunInfo info{.inputs = o.dirs, .mode = full ? "full_trace" : "summary_tables", .processes = processes};
  info.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string text = format == "json" ? DumpJson(ClusterReportToJson(report, info))
                                      : ClusterReportToMarkdown(report, info);
  RETURN_IF_ERROR(WriteOutput(o.output, text, ctx));
  for (const UnreadableRank& u : report.unreadable) ctx.err << "cann-profiler: warning: unreadable rank: " << u.reason << "\n";
  if (report.ranks.empty()) return InvalidInput("no rank could be read ({} unreadable)", report.unreadable.size());
  return ExitCode::kOk;
}

}  // namespace

Command AddClusterCommand(CLI::App& root) {
  auto o = std::make_shared<ClusterOptions>();
  CLI::App* cmd = root.add_subcommand(
      "cluster", "multi-rank analysis: per-rank step breakdown, slow ranks with evidence, slow links");
  cmd->add_option("folders", o->dirs, "folders holding the ranks' profiler results (or the results themselves)")
      ->required();
  cmd->add_flag("--full_trace", o->full_trace,
                "import every rank's full trace and recompute the breakdown from it (default: summary tables)");
  cmd->add_option("--jobs", o->jobs, "ranks loaded at once (default: all cores; per process under --mpi)")
      ->check(PositiveInteger());
  cmd->add_flag("--mpi", o->mpi,
                "under mpirun: the job's processes share the loading, process 0 writes the report (inputs must be "
                "at the same paths on every host)");
  AddOutputOptions(cmd, &o->output, "text, md, json");
  return {cmd, [o](CommandContext& ctx) { return RunCluster(*o, ctx); }};
}

}  // namespace cprof::cli
