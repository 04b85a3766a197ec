// `cann-profiler tune` (also installed as `cann-auto-tune`): searches a workload's knobs.
//
//   cann-profiler tune --space space.yaml --objective latency_ms:min --budget 50
//       -- python3 bench.py --threads {threads} --batch {batch}   (one command line)
//   cann-profiler tune --replay gemm_RTX_3090.json.gz --budget 100 --seed 1 --json
//
// Progress goes to stderr (one line per trial); the result to stdout or --output: text, or with
// --json one JSON line with best_value, best_params, trials and the study's history.
// Exit codes: 0 a best configuration was found; 1 every trial failed (or none finished within
// --time); 2 bad input, found before the first trial or from the study's first trials; 3 internal.
// What is printed: tune_summary.h.
#include <fmt/format.h>

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <utility>
#include <nlohmann/json.hpp>

#include "analysis/diagnose/runtime_adjustment.h"
#include "base/byte_source.h"
#include "base/temp_dir.h"
#include "base/time_units.h"
#include "base/url_password.h"
#include "cli/commands.h"
#include "cli/tune_html_report.h"
#include "cli/tune_space.h"
#include "cli/tune_summary.h"
#include "cli/tune_trace_objective.h"
#include "import/import_trace.h"
#include "report/diagnose/diagnosis_json.h"
#include "report/diagnose/diagnosis_reader.h"
#include "report/diagnose/runtime_adjustment_yaml.h"
#include "report/tune/tuning_report.h"
#include "tune/diagnosis_guidance.h"
#include "tune/replay_evaluator.h"
#include "tune/sampler.h"
#include "tune/space_file.h"
#include "tune/trial_runner.h"
#include "tune/tuner.h"

namespace cprof::cli {
namespace {

using namespace cprof::tune;

struct TuneCliOptions {
  std::string space;
  std::string objective;
  int64_t budget = 100;
  std::string time;
  std::string sampler = "auto";
  int repeats = 1;
  std::string timeout;
  std::string storage;
  std::string study;
  int workers = 1;
  std::string from_diagnosis;
  std::string runtime_adjustment;  // where the chosen configuration goes (runtime_adjustment.yaml schema)
  std::string report = "tune_report.html";  // the HTML tuning report; "" for none
  std::string replay;
  bool replay_noise = false;
  uint64_t seed = 0;
  std::vector<std::string> env;
  std::vector<std::string> regex;
  bool shell = false;
  std::optional<int> remeasure;  // default: 3 for commands, 0 for replay
  bool no_default = false;
  bool quiet = false;
  OutputOptions output;
  std::vector<std::string> command;
};

StatusOr<std::pair<std::string, std::string>> SplitAssignment(const std::string& text, const char* flag) {
  size_t eq = text.find('=');
  if (eq == std::string::npos || eq == 0) return InvalidInput("{} '{}': expected NAME=VALUE", flag, text);
  return std::make_pair(text.substr(0, eq), text.substr(eq + 1));
}

// An output file named by `option` (-o, --report, --runtime_adjustment) must be writable when the
// study ends: checked before the first trial, as a storage URL is (it was found out after the
// study, whose results were lost with --storage memory). The file itself is written at the end,
// into a temporary file renamed over it: here only its folder is checked.
Status CheckOutputWritable(const std::string& path, std::string_view option) {
  if (path.empty() || path == "-") return Status::Ok();
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    return InvalidInput("{} '{}': is a folder; give a file name", option, path);
  std::filesystem::path dir = std::filesystem::path(path).parent_path();
  if (dir.empty()) dir = ".";
  if (!std::filesystem::exists(dir, ec))
    return InvalidInput("{} '{}': the folder {} does not exist (it is written when the study ends)", option, path,
                        dir.string());
  if (!std::filesystem::is_directory(dir, ec)) return InvalidInput("{} '{}': {} is not a folder", option, path, dir.string());
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    return InvalidInput("{} '{}': cannot write in {}: {} (it is written when the study ends)", option, path,
                        dir.string(), ::strerror(errno));
  return Status::Ok();
}

// A finding's fix as a guided start tried it: the value, and the whole configuration (to find its
// trial).
struct GuidedFix {
  std::string value;
  std::map<std::string, std::string> config;
};

// Per parameter whose fix `chosen` does not keep, "; its fix p=v <what became of it>": it failed
// (torch.compile on PyTorch 1.13; the file said the fix "measured worse"), tied with the best,
// measured no better than the default, or worse than the chosen configuration.
std::map<std::string, std::string> FixNotes(const TuneResult& r, const std::map<std::string, GuidedFix>& fixes,
                                            const std::map<std::string, std::string>& chosen,
                                            const std::string& objective, bool default_kept) {
  std::map<std::string, std::string> notes;
  for (const auto& [param, fix] : fixes) {
    auto kept = chosen.find(param);
    if (kept == chosen.end() || kept->second == fix.value) continue;
    auto it = std::find_if(r.trials.begin(), r.trials.end(),
                           [&](const TrialSummary& t) { return t.params == fix.config; });
    std::string what = "was not measured";
    if (it != r.trials.end() && it->state == TrialState::kFailed) {
      what = "failed (" + it->reason + ")";
    } else if (it != r.trials.end() && it->state == TrialState::kComplete) {
      const auto mine = it->metrics.find(objective);
      const auto& best = r.trials[*r.best].metrics;
      if (mine != it->metrics.end() && best.count(objective) && mine->second == best.at(objective))
        what = "measured the same as the configuration chosen";
      else
        what = default_kept ? "measured no better than the default" : "measured worse than the configuration chosen";
    }
    notes[param] = fmt::format("; its fix {}={} {}", param, fix.value, what);
  }
  return notes;
}

// The chosen configuration as runtime_adjustment.yaml (the schema recommend-runtime writes), to
// --runtime_adjustment, default runtime_adjustment.yaml when the study started from a diagnosis.
// `fix_notes`: per parameter whose finding's fix the study did not choose, what became of it
// (FixNotes), added to its reason.
Status WriteTunedRuntime(const TuneCliOptions& o, const std::map<std::string, std::string>& params,
                         const std::optional<DiagnosisGuidance>& guidance,
                         const std::map<std::string, std::string>& fix_notes, const std::string& result,
                         CommandContext& ctx) {
  std::string device = "cpu", trace;
  uint64_t hash = 0;
  if (!o.from_diagnosis.empty()) {
    ASSIGN_OR_RETURN(Diagnosis d, LoadDiagnosis(o.from_diagnosis));
    device = std::string(DeviceKindId(d.device));
    trace = d.trace_path;
    hash = d.content_hash;
  }
  std::map<std::string, std::string> why = guidance ? guidance->why : std::map<std::string, std::string>{};
  for (const auto& [param, note] : fix_notes)
    if (why.count(param)) why[param] += note;
  RuntimeAdjustment a = RuntimeAdjustmentFromTuned(params, why, device, result);
  a.trace = trace;
  a.content_hash = hash;
  a.diagnosis = o.from_diagnosis;
  OutputOptions out;
  out.output = o.runtime_adjustment.empty() ? "runtime_adjustment.yaml" : o.runtime_adjustment;
  // The default path may hold recommend-runtime's advice, written beside the study: keep it (an
  // explicit --runtime_adjustment is the user's choice and is replaced).
  if (o.runtime_adjustment.empty() && std::filesystem::exists(out.output)) {
    StatusOr<std::string> text = ReadWholeFile(out.output);
    StatusOr<RuntimeAdjustment> existing =
        text.ok() ? ParseRuntimeAdjustment(*text, out.output) : StatusOr<RuntimeAdjustment>(text.status());
    if (!existing.ok() || existing->producer != "tune") {
      const std::string kept = out.output;
      out.output = "runtime_adjustment.tune.yaml";
      if (!o.quiet)
        ctx.err << kept << " holds " << (existing.ok() ? existing->producer + "'s settings" : "another file")
                << "; kept\n";
    }
  }
  RETURN_IF_ERROR(WriteOutput(out, RuntimeAdjustmentToYaml(a, kSchemaVersion), ctx));
  if (!o.quiet) ctx.err << "runtime adjustment written to " << out.output << "\n";
  return Status::Ok();
}

// Trace objectives: every trial runs under this program's `trace --scope framework` (operators,
// steps and spans, /proc metrics; no CPU sampling, the lightest scope with steps) and the
// objectives are read from the trace it wrote.
Status TraceEachTrial(std::vector<TraceObjective> objectives, CommandSpec* spec) {
  std::error_code ec;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe", ec);
  if (ec) return Internal("cannot find this program to trace the trials: /proc/self/exe: {}", ec.message());
  // Each trial runs in a folder of its own under $TMPDIR: a TMPDIR where none can be made is a
  // usage error now, not a failure of every trial.
  ASSIGN_OR_RETURN(std::string probe, MakeTempDir(kTrialDirPrefix));
  std::filesystem::remove_all(probe, ec);
  spec->wrapper = {self.string(), "trace", "--scope", "framework", "-o", "{output}", "--"};
  spec->wrapper_log_prefix = "cann-profiler: ";
  spec->read_output = [objectives = std::move(objectives)](const std::string& file) -> StatusOr<OutputMetrics> {
    ASSIGN_OR_RETURN(Trace trace, ImportTrace(file));
    OutputMetrics out;
    for (const TraceObjective& t : objectives) {
      StatusOr<double> v = t.Value(trace);
      // No such span: absent, as an objective the command never printed, so that a misspelt span
      // name stops the study at the first trial (trial_outcome.h) instead of failing every trial.
      if (!v.ok() && v.status().code() == StatusCode::kNotFound) out.absent[t.name()] = v.status().message();
      else if (!v.ok()) return v.status();
      else out.values[t.name()] = *v;
    }
    return out;
  };
  return Status::Ok();
}

// What the tuner's guidance reads of a diagnosis report.
tune::ReportedRun ReportedRunOf(const Diagnosis& d) {
  tune::ReportedRun run{.device = std::string(DeviceKindId(d.device)), .torch_version = d.torch_version};
  for (const Finding& f : d.findings) {
    tune::ReportedFinding r{.category = std::string(CategoryId(f.category)), .confidence = f.confidence, .title = f.title};
    for (const FindingMetric& m : f.metrics) r.metrics.insert_or_assign(m.name, m.value);
    run.findings.push_back(std::move(r));
  }
  return run;
}

CommandResult RunTune(const TuneCliOptions& o, CommandContext& ctx) {
  static constexpr std::string_view kFormats[] = {"text", "json"};
  ASSIGN_OR_RETURN(std::string format, ResolveOutputFormat(o.output, kFormats, "text"));
  std::optional<DiagnosisGuidance> guidance;
  if (!o.from_diagnosis.empty()) {
    // ReadDiagnosisFile says "is a trace ...; run `cann-profiler diagnose --trace` first" for a
    // trace given by mistake, as generate-plan and visualize do.
    ASSIGN_OR_RETURN(std::string report, ReadDiagnosisFile(o.from_diagnosis));
    // The whole report's checks (its kind, its schema) before the first trial: the result is
    // written from it at the end, and an error then threw the study away.
    ASSIGN_OR_RETURN(Diagnosis diagnosis, ParseDiagnosis(report, o.from_diagnosis));
    ASSIGN_OR_RETURN(DiagnosisGuidance g,
                     tune::GuidanceFor(ReportedRunOf(diagnosis), o.from_diagnosis, /*require_knobs=*/o.space.empty()));
    // About the knobs of the guidance's own space; a --space of the user's says its own.
    if (o.space.empty())
      for (const std::string& note : g.notes) ctx.err << "note: " << o.from_diagnosis << ": " << note << "\n";
    guidance = std::move(g);
  }
  if (o.space.empty() && o.replay.empty() && !guidance)
    return InvalidInput(
        "tune: give the search space with --space FILE (or --from_diagnosis REPORT for its knobs)");
  if (o.replay.empty() && o.command.empty())
    return InvalidInput("tune: give the command to run after `--` (or --replay CACHE.json.gz)");
  if (!o.replay.empty() && !o.command.empty()) return InvalidInput("tune: --replay and a command exclude each other");
  if (o.repeats < 1) return InvalidInput("--repeats must be at least 1");
  if (o.remeasure && *o.remeasure < 0)
    return InvalidInput("--remeasure {}: must be 0 (no re-measurement) or more", *o.remeasure);
  RETURN_IF_ERROR(CheckOutputWritable(o.output.output, "--output"));
  RETURN_IF_ERROR(CheckOutputWritable(o.report, "--report"));
  RETURN_IF_ERROR(CheckOutputWritable(o.runtime_adjustment, "--runtime_adjustment"));
  if (o.workers < 1 || o.workers > 1024) return InvalidInput("--workers must be between 1 and 1024");
  if (o.budget < 1) return InvalidInput("--budget must be positive");
  {
    std::vector<std::string> names = SamplerNames();
    if (std::find(names.begin(), names.end(), o.sampler) == names.end())
      return InvalidInput("--sampler '{}': choose auto, gp, tpe, evolution or random", o.sampler);
  }

  // The space: a file, the replay cache's own parameter lists, or the knobs the findings suggest.
  ASSIGN_OR_RETURN(SpaceFile space_file,
                   LoadTuneSpace({.space = o.space, .replay = o.replay, .from_diagnosis = o.from_diagnosis},
                                 guidance, o.quiet, ctx.err, o.seed));
  const SearchSpace& space = space_file.space;

  std::unique_ptr<ReplayEvaluator> replay;
  if (!o.replay.empty()) {
    ASSIGN_OR_RETURN(replay, ReplayEvaluator::Open(o.replay, space, o.replay_noise));
  }
  TuneOptions topt;
  {
    auto objectives = ParseObjectives(o.objective, replay ? replay->metric() : "");
    if (!objectives.ok()) return objectives.status().WithContext("--objective");
    topt.objectives = std::move(objectives).value();
  }
  // A replay reports the cache's objective, in the direction the file or Kernel Tuner's default
  // for its name gives; --objective may name it, and must for a metric of no known direction.
  if (replay && o.objective.empty()) {
    if (!replay->higher_is_better())
      return InvalidInput(
          "{}: the cache's objective '{}' has no known direction (the file has no "
          "objective_higher_is_better): give --objective '{}:min' or '{}:max'",
          o.replay, replay->metric(), replay->metric(), replay->metric());
    topt.objectives[0].maximize = *replay->higher_is_better();
  }
  std::vector<TraceObjective> traced;  // objectives read from a trace of each trial
  for (ObjectiveSpec& obj : topt.objectives) {
    ASSIGN_OR_RETURN(std::optional<TraceObjective> t, ParseTraceObjective(obj.name));
    // throughput(step) without a direction was minimized: a rate is maximized unless told.
    if (t && !obj.direction_given && t->is_rate()) obj.maximize = true;
    if (replay && obj.name != replay->metric())
      return InvalidInput("--objective '{}': a replay reports one metric, '{}' (the cache's objective)",
                          obj.name, replay->metric());
    if (t) traced.push_back(std::move(*t));
  }

  std::unique_ptr<Evaluator> evaluator;
  std::string identity;  // what makes this study this study (beyond space and objectives)
  if (replay) {
    evaluator = std::move(replay);
    identity = "replay:" + std::filesystem::absolute(o.replay).string() + (o.replay_noise ? ":noise" : "");
  } else {
    CommandSpec spec;
    spec.argv = o.command;
    spec.shell = o.shell;
    spec.env = space_file.env;
    for (const std::string& e : o.env) {
      ASSIGN_OR_RETURN(auto kv, SplitAssignment(e, "--env"));
      spec.env.push_back(kv);
    }
    for (const std::string& r : o.regex) {
      // "NAME=REGEX", or a bare REGEX for the (first) objective.
      size_t eq = r.find('=');
      bool named = eq != std::string::npos && eq > 0 &&
                   r.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") == eq;
      std::string name = named ? r.substr(0, eq) : "";
      if (name.empty()) {
        size_t colon = o.objective.find_first_of(":,");
        name = o.objective.substr(0, colon);
        if (name.empty()) return InvalidInput("--regex '{}': name the metric (NAME=REGEX) or give --objective", r);
      }
      spec.regex.emplace_back(name, named ? r.substr(eq + 1) : r);
    }
    if (!o.timeout.empty()) {
      StatusOr<TimeNs> timeout = ParseDuration(o.timeout);
      if (!timeout.ok()) return timeout.status().WithContext("--timeout");
      spec.timeout_ns = *timeout;
      if (spec.timeout_ns <= 0) return InvalidInput("--timeout '{}' must be positive", o.timeout);
    }
    if (!traced.empty()) RETURN_IF_ERROR(TraceEachTrial(std::move(traced), &spec));
    ASSIGN_OR_RETURN(auto runner, TrialRunner::Create(spec, space));
    RETURN_IF_ERROR(
        CheckParametersPassed(spec, space_file, o.space.empty() ? o.from_diagnosis : o.space, ctx.err));
    evaluator = std::move(runner);
    identity = "command:";
    for (const std::string& a : o.command) identity += a + '\x1f';
    for (const auto& [k, v] : spec.env) identity += k + "=" + v + '\x1f';
    for (const auto& [k, v] : spec.regex) identity += k + "~" + v + '\x1f';
    identity += o.shell ? "shell" : "";
  }

  topt.sampler = o.sampler;
  topt.budget = o.budget;
  if (!o.time.empty()) {
    StatusOr<TimeNs> limit = ParseDuration(o.time);
    if (!limit.ok()) return limit.status().WithContext("--time");
    topt.time_limit_ns = *limit;
    if (topt.time_limit_ns <= 0) return InvalidInput("--time '{}' must be positive", o.time);
  }
  topt.workers = o.workers;
  topt.repeats = o.repeats;
  topt.seed = o.seed;
  topt.default_first = !o.no_default;
  std::string guided_text;
  std::map<std::string, GuidedFix> guided_fixes;  // by parameter
  if (guidance) {
    // The guided starts: per finding, the values the space's `fixes:` give for its category.
    const std::vector<GuidedStart> starts = GuidedStartsFor(space, space_file.fixes, *guidance);
    for (const GuidedStart& start : starts) {
      StatusOr<Config> c = space.FromValues(start.values);
      std::string text;
      for (const auto& [param, why] : start.why)
        text += fmt::format("{}{}={} ({})", text.empty() ? "" : ", ", param, FormatValue(start.values.at(param)), why);
      if (!c.ok() || !space.Feasible(*c)) {
        if (!o.quiet)
          ctx.err << "guided start " << text << " is not a legal configuration of the space; not used\n";
        continue;
      }
      topt.start_configs.push_back(*c);
      for (const auto& [param, why] : start.why) {
        if (guided_fixes.count(param)) continue;  // the first finding's fix names it
        guidance->why[param] = why;
        guided_fixes[param] = {FormatValue(start.values.at(param)), space.Named(*c)};
      }
      guided_text += (guided_text.empty() ? "" : "; ") + text;
      if (!o.quiet) ctx.err << "guided start from " << o.from_diagnosis << ": " << text << "\n";
    }
    if (starts.empty() && !o.quiet) {
      // Without a word the study looked guided and was not: say how a space declares a fix.
      std::string categories;
      for (const GuidanceFinding& f : guidance->findings)
        if (categories.find(f.category) == std::string::npos) categories += (categories.empty() ? "" : ", ") + f.category;
      ctx.err << "no guided start from " << o.from_diagnosis << ": no parameter of the space has a `fixes:` entry for "
              << (categories.empty() ? "its findings" : categories)
              << " (e.g. `fixes: {" << (guidance->findings.empty() ? "layout_conversion" : guidance->findings[0].category)
              << ": VALUE}` on a parameter; see README, tune)\n";
    }
  }
  topt.remeasure_top = o.remeasure.value_or(o.replay.empty() ? 3 : 0);
  topt.remeasure_repeats = std::max(3, o.repeats);
  topt.fingerprint_extra = identity;
  topt.study_name = o.study.empty() ? "tune-" + StudyFingerprint(space, topt.objectives, identity).substr(0, 12)
                                    : o.study;
  const std::string storage_url =
      o.storage.empty() ? (o.replay.empty() ? "sqlite://cann-tune.db" : "memory") : o.storage;
  // The URL as messages, the summary and the JSON show it: results get shared, and a password in
  // the URL (postgresql://tuner:pw@host/db) was printed in all of them.
  const std::string shown_url = RedactUrlPasswords(storage_url);
  ASSIGN_OR_RETURN(auto storage, OpenStudyStorage(storage_url));
  if (!o.quiet && o.study.empty()) {
    // A derived name changes with the space: an edited space.yaml starts a new study beside the
    // old one, which looked like a resume that had lost every trial.
    ASSIGN_OR_RETURN(std::vector<std::string> names, storage->StudyNames());
    if (std::find(names.begin(), names.end(), topt.study_name) == names.end() && !names.empty()) {
      const size_t shown = std::min<size_t>(names.size(), 3);  // the latest ones
      ctx.err << fmt::format(
          "new study {} in {}, beside {} other(s) ({}{}): another space, objective or command starts afresh; "
          "--study NAME names a study\n",
          topt.study_name, shown_url, names.size(), names.size() > shown ? "..., " : "",
          fmt::join(names.end() - static_cast<std::ptrdiff_t>(shown), names.end(), ", "));
    }
  }

  ProgressFn progress;
  if (!o.quiet) progress = TuneProgressPrinter(ctx.err, topt.objectives);

  // Ctrl-C (SIGINT), SIGTERM and SIGHUP reach only this process: the trials run in process groups
  // of their own. Pass the signal on to them, stop, and die of it once they are cleaned up.
  struct sigaction on_signal {}, old_actions[3];
  on_signal.sa_handler = [](int sig) { InterruptTrials(sig); };
  sigemptyset(&on_signal.sa_mask);
  constexpr int kSignals[] = {SIGINT, SIGTERM, SIGHUP};
  for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &on_signal, &old_actions[i]);
  StatusOr<TuneResult> study = RunStudy(space, *evaluator, *storage, topt, progress);
  for (size_t i = 0; i < std::size(kSignals); ++i) sigaction(kSignals[i], &old_actions[i], nullptr);
  if (const int sig = TrialsInterrupted()) {
    // Said the same whether a trial was running or the final re-measurement was: "the trials
    // that were running rerun" when none was read as if work were lost.
    ctx.err << fmt::format("tune interrupted by signal {}: {}\n", sig,
                           shown_url == "memory"
                               ? "the study was in memory and is lost"
                               : "the finished trials are kept in " + shown_url +
                                     "; the same command resumes the study (a trial that was running runs again, "
                                     "and the final re-measurement is redone)");
    ctx.err.flush();
    ::signal(sig, SIG_DFL);
    ::raise(sig);
  }
  if (!study.ok()) return study.status();
  TuneResult r = std::move(*study);

  const TuneSummaryInput summary{r, topt, space, shown_url};
  const TuneOutcome outcome = TuneOutcomeOf(summary);
  const std::string& objective_name = outcome.objective;
  const std::optional<double>& best_value = outcome.best_value;
  const std::optional<double>& improvement = outcome.improvement;
  const std::string text = format == "json" ? TuneSummaryJson(summary) : TuneSummaryText(summary);
  RETURN_IF_ERROR(WriteOutput(o.output, text, ctx));
  if (!o.report.empty()) {
    std::string command_text = o.replay.empty() ? fmt::format("{}", fmt::join(o.command, " ")) : "replay " + o.replay;
    OutputOptions out;
    out.output = o.report;
    RETURN_IF_ERROR(WriteOutput(out, TuningReportHtml(TuningReportFrom(summary, command_text, guided_text)), ctx));
    if (!o.quiet) ctx.err << "tuning report written to " << o.report << "\n";
  }
  if (r.best && (guidance || !o.runtime_adjustment.empty())) {
    // A best that the re-measurement cannot tell from the default changes nothing worth setting:
    // the default's values are written, each saying so.
    const bool keep_default = outcome.keep_default;
    std::string result = fmt::format("tune: best of {} trials ({} = {}{})", r.evaluations, objective_name,
                                     best_value ? FormatValueText(*best_value) : "?",
                                     improvement ? fmt::format(", {:+.1f}% vs the default", 100 * *improvement) : "");
    if (keep_default) result += "; " + KeepDefaultNote(outcome);
    const auto& chosen = r.trials[keep_default ? *r.default_trial : *r.best].params;
    RETURN_IF_ERROR(WriteTunedRuntime(o, chosen, guidance,
                                      FixNotes(r, guided_fixes, chosen, objective_name, keep_default), result, ctx));
  }
  return r.best ? ExitCode::kOk : ExitCode::kVerdictFailed;
}

}  // namespace

Command AddTuneCommand(CLI::App& root) {
  auto o = std::make_shared<TuneCliOptions>();
  CLI::App* cmd = root.add_subcommand("tune", "search a workload's knobs (sample-efficient, resumable, parallel)");
  cmd->add_option(
      "--space", o->space,
      "search space: YAML, a Kernel Tuner cache (its tune_params/restrictions), a T4 space JSON or T4 "
      "results");
  cmd->add_option(
      "--objective", o->objective,
      "metric(s) to optimize: \"latency_ms:min\" or \"latency_ms:min,mem_mb:min\" (a Pareto front), "
      "printed by the command; with parentheses, read from a trace of each trial: \"p99(step):min\", "
      "\"mean(decode)\", \"throughput(step):max\", \"mem_peak(run)\"; default: the only metric the "
      "command reports (with --replay the cache's objective, \"time\" in most)");
  cmd->add_option("--budget", o->budget, "evaluations in the whole study, failed ones included (default 100)");
  cmd->add_option(
      "--time", o->time,
      "the whole run's wall time (\"30m\", \"1h30m\"): the search stops early enough to leave the "
      "re-measurement of --remeasure its expected time; a trial still running then is stopped and left to "
      "the rerun (not failed; with --repeats, kept on the repeats already measured), and the "
      "re-measurement is cut short");
  cmd->add_option("--sampler", o->sampler, "auto (default), gp, tpe, evolution or random");
  cmd->add_option("--repeats", o->repeats, "measurements per configuration; clearly worse ones stop early (racing)");
  cmd->add_option("--timeout", o->timeout, "kill a trial's process group after this long (\"60s\", \"2m30s\"); the trial fails");
  cmd->add_option(
      "--storage", o->storage,
      "sqlite://study.db (relative; sqlite:///abs/path.db; default: sqlite://cann-tune.db; memory with "
      "--replay), postgresql://user@host/db for many workers, or memory");
  cmd->add_option("--study", o->study, "study name (default: derived from the space, objective and command, so "
                                       "rerunning the same command resumes it)");
  cmd->add_option("--workers", o->workers, "trials to run at once in this process");
  cmd->add_option("--from_diagnosis", o->from_diagnosis,
                  "a diagnose report: checked, and the chosen configuration is written as runtime_adjustment.yaml");
  cmd->add_option("--runtime_adjustment", o->runtime_adjustment,
                  "write the chosen configuration here (runtime_adjustment.yaml schema; default runtime_adjustment.yaml "
                  "with --from_diagnosis, or runtime_adjustment.tune.yaml when that one holds another tool's settings)");
  cmd->add_option("--report", o->report, "the HTML report: result, convergence, parameter importance, trials")
      ->capture_default_str();
  cmd->add_option("--replay", o->replay,
                  "evaluate by lookup in a Kernel Tuner cache file or T4 results (benchmarks; absent configurations are free)");
  cmd->add_flag("--replay_noise", o->replay_noise, "with --replay: one random sample of `times`, not their mean");
  cmd->add_option("--seed", o->seed,
                  "random seed: the same seed reproduces the study with one worker (with --workers K the "
                  "proposals follow the order trials finish in)")
      ->check(NonNegativeInteger());
  cmd->add_option("--env", o->env, "NAME=VALUE for the command, {param} placeholders allowed; repeatable");
  cmd->add_option("--regex", o->regex,
                  "NAME=REGEX reading metric NAME from stdout (group 1 of the last match); repeatable");
  cmd->add_flag("--shell", o->shell, "run the command through /bin/sh -c, its words joined with spaces (values are shell-quoted: write each {param} outside quotes)");
  cmd->add_option("--remeasure", o->remeasure,
                  "at the end, measure the best K configurations and the default up to max(3, --repeats) more "
                  "times each, in turns, racing away the clearly worse, to choose the best, then it and the "
                  "default as often again for the reported means and 95% intervals (default 3; 0 with --replay)");
  cmd->add_flag("--no_default", o->no_default, "do not start with the space's default configuration");
  cmd->add_flag("--quiet,-q", o->quiet, "no progress lines on stderr");
  AddOutputOptions(cmd, &o->output, "text or json");
  cmd->add_option("command", o->command, "the command to tune, after `--`, with {param} placeholders")->expected(-1);
  return {cmd, [o](CommandContext& ctx) { return RunTune(*o, ctx); }};
}

}  // namespace cprof::cli
