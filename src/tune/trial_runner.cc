// TrialRunner: placeholder substitution, the trial's command and environment, and what its
// process's end and output mean (the process itself: trial_process.cc).
#include "tune/trial_runner.h"

#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <filesystem>
#include <optional>

#include "base/shell_quote.h"
#include "base/temp_dir.h"
#include "tune/printed_metrics.h"

namespace cprof::tune {
namespace {

// The last non-empty line of `s` that does not start with `skip` (a wrapper's own messages).
std::string LastLine(const std::string& s, const std::string& skip) {
  size_t end = s.size();
  while (true) {
    end = s.find_last_not_of("\r\n \t", end == 0 ? std::string::npos : end - 1);
    if (end == std::string::npos) return "";
    const size_t start = s.rfind('\n', end);
    const size_t from = start == std::string::npos ? 0 : start + 1;
    std::string line = s.substr(from, end + 1 - from);
    if (skip.empty() || line.rfind(skip, 0) != 0) {
      if (line.size() > 300) line = line.substr(0, 300) + "...";
      return line;
    }
    if (from == 0) return "";
    end = from;
  }
}

}  // namespace

StatusOr<std::string> SubstituteParams(const std::string& tmpl, const std::map<std::string, std::string>& params) {
  std::string out;
  for (size_t i = 0; i < tmpl.size(); ++i) {
    char c = tmpl[i];
    if (c == '{' && i + 1 < tmpl.size() && tmpl[i + 1] == '{') {
      out += '{';
      ++i;
    } else if (c == '}' && i + 1 < tmpl.size() && tmpl[i + 1] == '}') {
      out += '}';
      ++i;
    } else if (c == '{') {
      size_t close = tmpl.find('}', i);
      if (close == std::string::npos) return InvalidInput("'{}': unclosed '{{'", tmpl);
      std::string name = tmpl.substr(i + 1, close - i - 1);
      auto it = params.find(name);
      if (it == params.end()) {
        // `{"t": 1}` in a JSON snippet is the usual way here: say how to write it.
        const bool identifier = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
          return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
        });
        return InvalidInput("'{}': no parameter named '{}'{}", tmpl, name,
                            identifier ? "" : " (write a literal brace as {{ or }})");
      }
      out += it->second;
      i = close;
    } else {
      out += c;
    }
  }
  return out;
}

std::vector<std::string> SubstituteArguments(const std::vector<std::string>& argv,
                                             const std::map<std::string, std::string>& params) {
  std::vector<std::string> out;
  bool last_is_flag = false;  // out.back() is an option word without placeholders ("--momentum")
  for (const std::string& a : argv) {
    StatusOr<std::string> s = SubstituteParams(a, params);
    if (s.ok()) {
      last_is_flag = a.size() > 1 && a[0] == '-' && SubstituteParams(a, {}).ok();
      out.push_back(std::move(*s));
      continue;
    }
    // A placeholder absent from `params`: the parameter is inactive here (TrialRunner::Create
    // checked that every placeholder names one). The argument goes, and the flag before it; a
    // flag is taken away once (`-v --m {m} {n}` keeps `-v` when both m and n are inactive).
    if (last_is_flag) out.pop_back();
    last_is_flag = false;
  }
  return out;
}

std::vector<std::string> ParametersNotPassed(const CommandSpec& spec, const SearchSpace& space) {
  std::vector<std::string> templates = spec.argv;
  for (const auto& [k, v] : spec.env) templates.push_back(v);
  std::vector<std::string> out;
  for (const Parameter& p : space.params()) {
    // Substituted with a marker for it and nothing for the others: the marker shows where it is
    // named (the templates passed TrialRunner::Create's check, so every placeholder is known).
    std::map<std::string, std::string> probe;
    for (const Parameter& q : space.params()) probe[q.name] = "";
    probe[p.name] = std::string(1, '\x01');
    const bool named = std::any_of(templates.begin(), templates.end(), [&](const std::string& t) {
      StatusOr<std::string> s = SubstituteParams(t, probe);
      return s.ok() && s->find('\x01') != std::string::npos;
    });
    if (!named) out.push_back(p.name);
  }
  return out;
}

std::string ParamEnvName(const std::string& name) {
  std::string upper = "CPROF_PARAM_";
  for (char c : name) upper += std::isalnum(static_cast<unsigned char>(c)) ? std::toupper(static_cast<unsigned char>(c)) : '_';
  return upper;
}

Status CheckPlaceholders(const std::string& tmpl, const SearchSpace& space, const std::string& where) {
  std::map<std::string, std::string> probe;
  std::string names;  // for the error: which placeholders there are
  for (const Parameter& p : space.params()) {
    probe[p.name] = "x";
    names += (names.empty() ? "{" : ", {") + p.name + "}";
  }
  Status st = SubstituteParams(tmpl, probe).status();
  if (st.ok()) return st;
  return InvalidInput("{}: {} (the space has {})", where, st.message(), names);
}

namespace {

// With --shell each value goes in already quoted (ShellQuote), so a placeholder must stand
// outside quotes: in "{s}" or '{s}' the value's own quotes end the user's, and a value
// `a"; touch x; echo "b` ran `touch x`. Each placeholder is marked, the words joined as
// Evaluate joins them, and the quoting at each mark read.
Status CheckShellPlaceholders(const std::vector<std::string>& argv, const SearchSpace& space) {
  std::map<std::string, std::string> marks;
  for (const Parameter& p : space.params()) marks[p.name] = "\x01" + p.name + "\x02";
  std::string text;
  for (const std::string& a : argv) {
    StatusOr<std::string> s = SubstituteParams(a, marks);
    if (!s.ok()) return s.status();
    text += (text.empty() ? "" : " ") + *s;
  }
  for (size_t at = text.find('\x01'); at != std::string::npos; at = text.find('\x01', at + 1)) {
    const ShellQuoting q = ShellQuoteContext(text, at);
    if (q == ShellQuoting::kNone) continue;
    const std::string name = text.substr(at + 1, text.find('\x02', at) - at - 1);
    return InvalidInput("command: placeholder {{{}}} is inside {} quotes; with --shell each value is put in "
                        "already quoted ('a b; c' stays one word), and quotes around it would end that quoting: "
                        "write {{{}}} without quotes",
                        name, q == ShellQuoting::kSingle ? "single" : "double", name);
  }
  return Status::Ok();
}

}  // namespace

StatusOr<std::unique_ptr<TrialRunner>> TrialRunner::Create(CommandSpec spec, const SearchSpace& space) {
  if (spec.argv.empty()) return InvalidInput("no command to tune: give it after --");
  for (const std::string& a : spec.argv) RETURN_IF_ERROR(CheckPlaceholders(a, space, "command"));
  if (spec.shell) RETURN_IF_ERROR(CheckShellPlaceholders(spec.argv, space));
  for (const auto& [k, v] : spec.env) RETURN_IF_ERROR(CheckPlaceholders(v, space, "env " + k));
  // A program that cannot run fails every trial the same way: say so now, not after the budget
  // (a misspelt `pyhton3` ran the whole study, each trial "cannot run 'pyhton3'"). A program
  // named by a placeholder is checked when each trial starts.
  if (!spec.shell && SubstituteParams(spec.argv[0], {}).ok()) {
    const std::string& name = spec.argv[0];
    std::string exe = ResolveExecutable(name);
    if (name.find('/') != std::string::npos && !spec.cwd.empty() && exe[0] != '/') exe = spec.cwd + "/" + exe;
    struct stat st;
    if (name.find('/') == std::string::npos && exe == name)
      return InvalidInput("command '{}': not found on PATH", name);
    if (::stat(exe.c_str(), &st) != 0) return InvalidInput("command '{}': {}", name, ::strerror(errno));
    if (S_ISDIR(st.st_mode) || ::access(exe.c_str(), X_OK) != 0)
      return InvalidInput("command '{}': not an executable file", name);
  }
  auto runner = std::unique_ptr<TrialRunner>(new TrialRunner());
  for (const auto& [name, re] : spec.regex) {
    try {
      runner->regex_.emplace_back(name, std::regex(re, std::regex::ECMAScript));
    } catch (const std::regex_error& e) {
      return InvalidInput("--regex '{}': {}", re, e.what());
    }
    // The value is group 1: without a group every trial failed with "no metrics in the output".
    if (runner->regex_.back().second.mark_count() == 0)
      return InvalidInput("--regex '{}': no group: put the number in parentheses, e.g. 'latency: ([0-9.]+) ms'", re);
  }
  for (const Parameter& p : space.params()) runner->param_names_.push_back(p.name);
  runner->spec_ = std::move(spec);
  return runner;
}

namespace {

EvalResult Failed(std::string reason) {
  EvalResult r;
  r.state = TrialState::kFailed;
  r.reason = std::move(reason);
  return r;
}

// The command's words for one configuration. With `shell` the words are shell text and only the
// substituted values are quoted; a parameter inactive in this configuration is the empty word ('').
StatusOr<std::vector<std::string>> CommandFor(const CommandSpec& spec, const std::vector<std::string>& param_names,
                                              const std::map<std::string, std::string>& params) {
  if (!spec.shell) return SubstituteArguments(spec.argv, params);
  std::map<std::string, std::string> quoted;
  for (const std::string& name : param_names) quoted[name] = "''";
  for (const auto& [k, v] : params) quoted[k] = ShellQuote(v);
  std::string joined;
  for (size_t i = 0; i < spec.argv.size(); ++i) {
    ASSIGN_OR_RETURN(std::string word, SubstituteParams(spec.argv[i], quoted));
    joined += (i ? " " : "") + word;
  }
  return std::vector<std::string>{"/bin/sh", "-c", joined};
}

// The wrapper's words, writing to `output`.
StatusOr<std::vector<std::string>> WrapperFor(const CommandSpec& spec, const std::string& output) {
  std::vector<std::string> wrapped;
  for (const std::string& w : spec.wrapper) {
    ASSIGN_OR_RETURN(std::string word, SubstituteParams(w, {{"output", output}}));
    wrapped.push_back(std::move(word));
  }
  return wrapped;
}

// The trial's environment: every parameter as CPROF_PARAM_<NAME>, the space's env templates, and
// TMPDIR set to the trial's folder when it has one.
std::vector<std::pair<std::string, std::string>> EnvFor(const CommandSpec& spec,
                                                        const std::map<std::string, std::string>& params,
                                                        const std::string& dir) {
  std::vector<std::pair<std::string, std::string>> env;
  for (const auto& [k, v] : params) env.emplace_back(ParamEnvName(k), v);
  for (const auto& [k, tmpl] : spec.env) {
    auto s = SubstituteParams(tmpl, params);
    if (s.ok()) env.emplace_back(k, *s);
  }
  if (!dir.empty()) {
    std::erase_if(env, [](const auto& kv) { return kv.first == "TMPDIR"; });
    env.emplace_back("TMPDIR", dir);
  }
  return env;
}

// The failure a finished process is, if it is one: past the run's deadline, not started, timed
// out, killed by a signal, or a nonzero exit.
std::optional<EvalResult> ProcessFailure(const ProcessResult& p, const CommandSpec& spec) {
  std::optional<EvalResult> res;
  if (p.past_deadline) {
    res = Failed("stopped at the run's time limit");
    res->past_deadline = true;
  } else if (!p.spawn_error.empty()) {
    res = Failed(p.spawn_error);
  } else if (p.timed_out) {
    res = Failed(fmt::format("timed out after {}", FormatDuration(spec.timeout_ns)));
    res->timed_out = true;
  } else if (p.signal) {
    res = Failed("killed by " + SignalName(p.signal));
    // The same crash on the first trials, the default among them, is the setup's (a library that
    // fails to load): it stops the study as an exit code with a message does.
    res->exit_error = true;
  } else if (p.exit_code != 0) {
    std::string tail = LastLine(p.err, spec.wrapper_log_prefix);
    res = Failed(fmt::format("exit code {}{}{}", p.exit_code, tail.empty() ? "" : ": ", tail));
    // With or without a message: a command that exits 1 silently on the default and the next
    // trials (a missing input file, a script that checks its arguments) spent the whole budget.
    res->exit_error = true;
  }
  if (res) res->seconds = p.seconds;
  return res;
}

}  // namespace

EvalResult TrialRunner::Evaluate(const std::map<std::string, std::string>& params, Rng& rng) {
  StatusOr<std::vector<std::string>> command = CommandFor(spec_, param_names_, params);
  if (!command.ok()) return Failed(command.status().message());
  std::vector<std::string> argv = std::move(command).value();
  // A wrapped trial runs in a folder of its own, its TMPDIR: the wrapper writes its output and
  // its scratch files there (a tracer killed at the timeout leaves its session files behind),
  // and the folder goes when the trial ends, whatever happened.
  std::string dir, output;
  if (!spec_.wrapper.empty()) {
    auto made = MakeTempDir(kTrialDirPrefix);
    if (!made.ok()) return Failed(made.status().message());
    dir = *made;
    output = dir + "/trial" + spec_.output_suffix;
  }
  struct RemoveDir {
    const std::string& path;
    ~RemoveDir() {
      std::error_code ec;
      if (!path.empty()) std::filesystem::remove_all(path, ec);
    }
  } remove_dir{dir};
  if (!spec_.wrapper.empty()) {
    StatusOr<std::vector<std::string>> wrapped = WrapperFor(spec_, output);
    if (!wrapped.ok()) return Failed(wrapped.status().message());
    argv.insert(argv.begin(), wrapped->begin(), wrapped->end());
  }
  // The metrics from all of stdout as it comes: a result printed before 1 MiB of log, or on a line
  // of more than 1 MiB, was lost with the start of the captured output.
  PrintedMetricsReader printed_reader(regex_);
  ProcessResult p = RunProcess(argv, EnvFor(spec_, params, dir), spec_.timeout_ns, spec_.cwd, deadline_.load(),
                               [&](std::string_view chunk) { printed_reader.Append(chunk); });
  if (std::optional<EvalResult> failed = ProcessFailure(p, spec_)) return *failed;
  EvalResult res;
  res.seconds = p.seconds;
  PrintedMetrics printed = printed_reader.Finish();
  res.metrics = std::move(printed.values);
  res.not_numbers = std::move(printed.not_numbers);
  res.output_problem = std::move(printed.json_problem);
  // Complete, even with no metrics at all: the tuner checks that the objectives are present, and
  // knows whether any trial of the study has reported them (a misspelt --objective is an error).
  res.state = TrialState::kComplete;
  if (spec_.read_output) {
    auto measured = spec_.read_output(output);
    if (!measured.ok()) {
      res.state = TrialState::kFailed;
      res.reason = measured.status().message();
      return res;
    }
    for (const auto& [k, v] : measured->values) {
      res.metrics[k] = v;
      res.not_numbers.erase(k);
    }
    for (const auto& [k, why] : measured->absent)
      if (!res.metrics.count(k) && !res.not_numbers.count(k)) res.absent[k] = why;
  }
  return res;
}

}  // namespace cprof::tune
