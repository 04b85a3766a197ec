// TrialRunner: evaluates a configuration by running the user's command with the parameters
// substituted, and reads the metrics it prints.
//
//   CommandSpec spec;
//   spec.argv = {"python3", "bench.py", "--threads", "{threads}"};
//   spec.env = {{"OMP_NUM_THREADS", "{threads}"}};
//   spec.timeout_ns = 60 * kNsPerS;
//   ASSIGN_OR_RETURN(auto runner, TrialRunner::Create(spec, space));
//   EvalResult r = runner->Evaluate(space.Named(config), rng);
//
// The command is executed directly (fork + execvp, arguments as a vector, no shell) unless
// `shell` is set (then `/bin/sh -c` with each substituted value shell-quoted). `{name}` is
// replaced by the parameter's value, `{{`/`}}` by a literal brace; every active parameter is also
// exported as CPROF_PARAM_<NAME>. An inactive (conditional) parameter leaves out its argument and
// that argument's flag (SubstituteArguments), is the empty word '' with `shell`, and leaves an
// environment template naming it unset. The child runs in its own process group; on timeout the whole
// group is killed (SIGTERM, then SIGKILL after a grace period), and so it is when tune itself
// dies, kill -9 included (the group's first process supervises the command, and kills what left
// the group once the command ends: command_supervisor.h).
// Metrics: the last line of stdout that is a JSON object (`{"latency_ms": 12.3, "mem_mb": 800}`),
// plus `regex` captures (the last match in stdout; group 1 is the value) under their names
// (printed_metrics.h; values that are not finite numbers go to EvalResult::not_numbers). A nonzero
// exit, a signal or a timeout fails the trial with the reason; whether the objectives are in the
// output is the study's to judge (CheckObjectives, trial_outcome.h). `wrapper` runs the command under another
// tool that measures more (a tracer) and adds what it wrote. Thread-safe: workers run trials concurrently.
#pragma once

#include <atomic>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/status.h"
#include "base/time_units.h"
#include "tune/evaluator.h"
#include "tune/search_space.h"
#include "tune/trial_process.h"

namespace cprof::tune {

// What a wrapper's output gave: values by name, and those it was asked for and lacks, with why
// (EvalResult::absent).
struct OutputMetrics {
  std::map<std::string, double> values;
  std::map<std::string, std::string> absent;
};

struct CommandSpec {
  std::vector<std::string> argv;                          // templates
  std::vector<std::pair<std::string, std::string>> env;   // name -> template
  std::vector<std::pair<std::string, std::string>> regex;  // metric name -> ECMAScript regex
  bool shell = false;
  TimeNs timeout_ns = 0;  // 0 = none
  std::string cwd;        // empty = inherit
  // When set, each trial runs as `wrapper... command...` (`cann-profiler trace -o {output} --`)
  // in a fresh folder ($TMPDIR/cprof_trial_XXXXXX) that is its TMPDIR and is removed when the trial ends;
  // "{output}" is a file in it, and read_output(file) adds the metrics the wrapper measured
  // (taking precedence over printed ones of the same name) and the ones it lacks (absent, unless
  // printed); a read error fails the trial with its message.
  std::vector<std::string> wrapper;
  std::function<StatusOr<OutputMetrics>(const std::string& file)> read_output;
  std::string output_suffix = ".pb";  // of the {output} file
  // stderr lines starting with this are the wrapper's own: a failed trial's reason quotes the
  // command's last other line.
  std::string wrapper_log_prefix;
};

// The name of a wrapped trial's folder under $TMPDIR (base/temp_dir.h adds six random characters).
inline constexpr std::string_view kTrialDirPrefix = "cprof_trial_";

// Substitutes {name} placeholders; an unknown name is kInvalidInput (checked once at startup).
StatusOr<std::string> SubstituteParams(const std::string& tmpl, const std::map<std::string, std::string>& params);

// Whether every placeholder of `tmpl` names a parameter of `space`: kInvalidInput "`where`: <why>
// (the space has {a}, {b})" otherwise. For the command, --env and a space file's `env:` entries.
Status CheckPlaceholders(const std::string& tmpl, const SearchSpace& space, const std::string& where);

// The command's arguments with {name} substituted. A parameter missing from `params` is inactive
// in this configuration (its `condition` does not hold): an argument naming it is left out, with
// the option word just before it when that one has no placeholder and starts with '-'
// (`--momentum {momentum}` or `--momentum={momentum}` disappear whole, as in irace), so the
// program keeps its own default. `argv` must have passed TrialRunner::Create's check.
std::vector<std::string> SubstituteArguments(const std::vector<std::string>& argv,
                                             const std::map<std::string, std::string>& params);

// The space's parameters that no template of `spec` names ({name} in an argument or an env entry,
// with or without `shell`): they reach the program only as CPROF_PARAM_<NAME>, so unless it reads
// that, tuning them changes nothing (tune warns). In the space's order.
std::vector<std::string> ParametersNotPassed(const CommandSpec& spec, const SearchSpace& space);

// CPROF_PARAM_<NAME>: the environment variable a parameter is exported as (non-alphanumerics as _).
std::string ParamEnvName(const std::string& name);

class TrialRunner final : public Evaluator {
 public:
  // Checks the templates against the space (every placeholder names a parameter).
  static StatusOr<std::unique_ptr<TrialRunner>> Create(CommandSpec spec, const SearchSpace& space);

  EvalResult Evaluate(const std::map<std::string, std::string>& params, Rng& rng) override;
  void SetDeadline(std::chrono::steady_clock::time_point deadline) override { deadline_ = deadline; }

 private:
  CommandSpec spec_;
  std::atomic<std::chrono::steady_clock::time_point> deadline_{std::chrono::steady_clock::time_point::max()};
  std::vector<std::string> param_names_;  // every parameter of the space, active or not
  std::vector<std::pair<std::string, std::regex>> regex_;
};

}  // namespace cprof::tune
