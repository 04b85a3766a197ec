// `tune`'s progress lines and its result as text or JSON.
#include "cli/tune_summary.h"

#include <fmt/format.h>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <utility>
#include <nlohmann/json.hpp>

#include "base/time_units.h"
#include "cli/cli_common.h"
#include "report/tune/tuning_report.h"
#include "stats/welch_t.h"
#include "tune/remeasure.h"

namespace cprof::cli {
namespace {

using namespace cprof::tune;
using Json = nlohmann::ordered_json;

// Each value as the space types it, so scripts can use numbers directly: int and float parameters
// as numbers, a categorical or ordinal value as it was written (`values: ["007", "1.10", 32]`:
// "007", "1.10" and 32; reading every numeric-looking text as a number gave 7 and 1.1).
Json ParamsJson(const std::map<std::string, std::string>& params, const SearchSpace& space) {
  Json j = Json::object();
  for (const auto& [k, v] : params) {
    j[k] = v;
    const std::optional<size_t> i = space.IndexOf(k);
    if (!i) continue;
    const Parameter& p = space.param(*i);
    if (p.type == ParamType::kInt || p.type == ParamType::kFloat) {
      char* end = nullptr;
      const double d = std::strtod(v.c_str(), &end);
      if (v.empty() || *end != '\0' || !std::isfinite(d)) continue;
      if (p.type == ParamType::kInt) j[k] = static_cast<int64_t>(std::llround(d));
      else j[k] = d;
      continue;
    }
    for (const tune::Value& value : p.values) {
      if (FormatValue(value) != v) continue;
      if (const auto* n = std::get_if<int64_t>(&value)) j[k] = *n;
      if (const auto* d = std::get_if<double>(&value)) j[k] = *d;
      break;
    }
  }
  return j;
}

// A fresh measurement's value as the terminal shows it: nothing when there is none (n = 0 used to
// read "lat = 0 [0, 0]"), no interval from one run (it read "[1.33, 1.33] (95% CI, n=1)").
std::string RemeasuredValueText(const Remeasured& m) {
  if (m.n == 0) return fmt::format("{} not re-measured ({})", m.objective, m.shortfall.empty() ? "no run" : m.shortfall);
  std::string text = fmt::format("{} = {}", m.objective, FormatValueText(m.mean));
  text += m.n == 1 ? std::string(" (n=1: no interval)")
                   : fmt::format(" [{}, {}] (95% CI, n={})", FormatValueText(m.ci_low), FormatValueText(m.ci_high), m.n);
  if (!m.shortfall.empty()) text += " (" + m.shortfall + ")";
  return text;
}

// The interval after a best or default line: "" without a re-measurement.
std::string IntervalText(const Remeasured* m) {
  if (!m) return "";
  if (m->n < 2) return fmt::format(" (n={}: no interval)", m->n);
  return fmt::format(" [{}, {}] (95% CI, n={})", FormatValueText(m->ci_low), FormatValueText(m->ci_high), m->n);
}

// After a best or default line whose fresh runs all failed: the value is the search's.
std::string SearchValueNote(const std::string& fresh_failed) {
  if (fresh_failed.empty()) return "";
  return fmt::format(" (the search's value; re-measuring it: {}; it may not run reliably)", fresh_failed);
}

const char* RemeasureEndName(RemeasureEnd e) {
  switch (e) {
    case RemeasureEnd::kNone: return "none";
    case RemeasureEnd::kWhole: return "whole";
    case RemeasureEnd::kCutShort: return "cut_short";
    case RemeasureEnd::kSkipped: return "skipped";
  }
  return "none";
}

// Why the space's default has no trial in a study that runs it first: a study resumed after its
// space's default changed, with its budget already spent, or a replay cache without it. nullopt
// when it has one, or the space has none (or --no_default).
std::optional<std::string> UnmeasuredDefault(const TuneSummaryInput& in) {
  const TuneResult& r = in.r;
  std::optional<Config> d = in.space.DefaultConfig();
  if (!in.options.default_first || !d) return std::nullopt;
  const std::map<std::string, std::string> named = in.space.Named(*d);
  const TrialSummary* trial = r.default_trial ? &r.trials[*r.default_trial] : nullptr;
  for (size_t i = 0; i < r.trials.size() && !trial; ++i)
    if (r.trials[i].params == named) trial = &r.trials[i];
  if (trial && trial->state == TrialState::kInfeasible)
    return fmt::format("not in the replay cache ({}): no baseline to compare with", ParamsText(named));
  if (trial) return std::nullopt;
  if (r.evaluations < in.options.budget)  // --time or an interrupt ended the run first
    return fmt::format(
        "not measured ({}): the run ended before it could run; rerun the command to measure it",
        ParamsText(named));
  return fmt::format(
      "not measured ({}): the study had its {} evaluations before it could run; a larger --budget "
      "runs it",
      ParamsText(named), r.evaluations);
}

}  // namespace

std::string FormatValueText(double v) { return fmt::format("{:.6g}", v); }

std::vector<std::string> TimeLimitNotes(const TuneSummaryInput& in) {
  std::vector<std::string> notes;
  const TuneResult& r = in.r;
  if (const auto& stop = r.search_stopped_for_time)
    notes.push_back(fmt::format("--time ended the search after {} of {} evaluations, at {:.1f} s: {:.1f} s were kept "
                                "for the re-measurement (its most runs at this run's pace, up to {:.0f}% of --time)",
                                r.evaluations, in.options.budget, stop->elapsed_s, stop->reserved_s,
                                100 * tune::kRemeasureShareOfTime));
  if (r.remeasure_top_within_time)
    notes.push_back(fmt::format("--time left room to re-measure the best {} configuration{} of the {} asked for",
                                *r.remeasure_top_within_time, *r.remeasure_top_within_time == 1 ? "" : "s",
                                in.options.remeasure_top));
  if (!r.stopped_at_time_limit.empty()) {
    const bool one = r.stopped_at_time_limit.size() == 1;
    notes.push_back(fmt::format(
        "--time ran out during trial{} {} before {} first run finished: not counted, not failed; {}",
        one ? "" : "s", fmt::join(r.stopped_at_time_limit, ", "), one ? "its" : "their",
        in.storage_url == "memory" ? std::string("the study was in memory")
                                   : fmt::format("{} again when the same command resumes the study ({})",
                                                 one ? "it runs" : "they run", in.storage_url)));
  }
  if (r.remeasure_end == RemeasureEnd::kSkipped)
    notes.push_back("re-measurement skipped: --time had run out when the search ended; the values are the search's");
  if (r.remeasure_end == RemeasureEnd::kCutShort)
    notes.push_back(r.remeasured.empty()
                        ? "re-measurement cut short by --time while choosing; the values are the search's"
                        : "re-measurement cut short by --time: the values below have fewer runs than planned");
  return notes;
}

TuneOutcome TuneOutcomeOf(const TuneSummaryInput& in) {
  const TuneResult& r = in.r;
  TuneOutcome o;
  // As the study resolved them: without --objective, the first trial's only metric (the best
  // trial's first metric by name was 'aaa' where the study minimized 'ms').
  o.objective = r.objectives.empty() ? "" : r.objectives[0].name;
  auto value_of = [&](const TrialSummary& t) -> std::optional<double> {
    auto it = t.metrics.find(o.objective);
    if (it == t.metrics.end()) return std::nullopt;
    return it->second;
  };
  // A re-measured trial is reported by its mean.
  const Remeasured* best_rem = r.best ? RemeasuredOf(r, *r.best) : nullptr;
  const Remeasured* default_rem = r.default_trial ? RemeasuredOf(r, *r.default_trial) : nullptr;
  o.best_value = best_rem ? best_rem->mean : r.best ? value_of(r.trials[*r.best]) : std::nullopt;
  o.default_value = default_rem       ? default_rem->mean
                    : r.default_trial ? value_of(r.trials[*r.default_trial])
                                      : std::nullopt;
  o.maximize = !r.objectives.empty() && r.objectives[0].maximize;
  // A trial measured again for the result whose fresh runs all failed keeps its search value, said
  // so; an improvement from a search value against a fresh mean (it read "+80.0% better" for a best
  // that had just failed 3 runs of 3) compares two kinds of number.
  o.best_fresh_failed = r.best ? FreshRunsFailed(r, *r.best) : "";
  o.default_fresh_failed = r.default_trial ? FreshRunsFailed(r, *r.default_trial) : "";
  const bool same_kind = (best_rem != nullptr) == (default_rem != nullptr);
  if (o.best_value && o.default_value && *o.default_value != 0 && same_kind)
    o.improvement = o.maximize ? (*o.best_value - *o.default_value) / std::fabs(*o.default_value)
                               : (*o.default_value - *o.best_value) / std::fabs(*o.default_value);
  // Unknown unless both have two runs. Welch's test of the difference (95%), not whether the two
  // intervals overlap, which holds for differences up to 1.4 times as large: with 3 runs each at
  // 20% noise it kept the default against a best 3 times as fast in 3 seeds of 7.
  if (best_rem && default_rem && best_rem != default_rem && best_rem->values.size() > 1 &&
      default_rem->values.size() > 1) {
    const WelchTTestResult t = WelchTTest(best_rem->values, default_rem->values);
    o.within_noise = t.ci_low <= 0 && 0 <= t.ci_high;
  }
  // Only the final runs of both decide (when --time cut the runs that chose, the search's values
  // would overrule the fresh choice); their means are compared directly (no improvement is
  // computed against a default of 0).
  if (best_rem && default_rem && best_rem != default_rem)
    o.keep_default = o.within_noise.value_or(false) ||
                     (o.maximize ? best_rem->mean <= default_rem->mean : best_rem->mean >= default_rem->mean);
  const auto* all = in.space.Enumerated();
  o.exhausted = all && r.evaluations < in.options.budget && r.trials.size() >= all->size();
  return o;
}

std::string KeepDefaultNote(const TuneOutcome& o) {
  if (!o.keep_default) return "";
  if (o.within_noise.value_or(false))
    return "within the noise: the final runs cannot tell them apart (Welch's t-test, 95%); the default is "
           "kept";
  return o.within_noise
             ? "the default measured better in the final runs, beyond the noise: the default is kept"
             : "the default measured no worse in the final runs: the default is kept";
}

std::string TuneSummaryJson(const TuneSummaryInput& in) {
  const TuneResult& r = in.r;
  const TuneOutcome o = TuneOutcomeOf(in);
  auto opt = [](const auto& v) { return v ? Json(*v) : Json(nullptr); };
  int64_t failed = 0, infeasible = 0;
  for (const TrialSummary& t : r.trials) {
    failed += t.state == TrialState::kFailed;
    infeasible += t.state == TrialState::kInfeasible;
  }
  Json doc = NewJsonDocument("tune");
  doc["study"] = r.study_name;
  doc["storage"] = in.storage_url;
  // Without --objective, the command's only metric (it read "objective": "" beside a best_value).
  doc["objective"] = FormatObjectives(r.objectives);
  doc["best_value"] = opt(o.best_value);
  doc["best_params"] = r.best ? ParamsJson(r.trials[*r.best].params, in.space) : Json(nullptr);
  doc["best_trial"] = r.best ? Json(r.trials[*r.best].number) : Json(nullptr);
  doc["trials"] = r.evaluations;
  doc["failed"] = failed;
  doc["infeasible"] = infeasible;
  doc["resumed"] = r.resumed;
  doc["space_exhausted"] = o.exhausted;
  doc["default_value"] = opt(o.default_value);
  doc["improvement_over_default"] = opt(o.improvement);
  doc["improvement_within_noise"] = opt(o.within_noise);
  doc["keep_default"] = o.keep_default;
  // Why the space's default has no value, when the study ran none for it (text as in the summary).
  std::optional<std::string> unmeasured = UnmeasuredDefault(in);
  doc["default_unmeasured"] = unmeasured ? Json(*unmeasured) : Json(nullptr);
  // Where best_value and default_value come from: "fresh" (the final runs), "search", or
  // "search_fresh_failed" (measured afresh, every run failed).
  // null beside a null value (a default whose trial failed said "search").
  auto source = [&](std::optional<size_t> trial, const std::optional<double>& value, const std::string& failed) -> Json {
    if (!trial || !value) return nullptr;
    if (!failed.empty()) return "search_fresh_failed";
    return RemeasuredOf(r, *trial) ? "fresh" : "search";
  };
  doc["best_value_source"] = source(r.best, o.best_value, o.best_fresh_failed);
  doc["default_value_source"] = source(r.default_trial, o.default_value, o.default_fresh_failed);
  doc["stopped_at_time_limit"] = r.stopped_at_time_limit;
  if (r.search_stopped_for_time)
    doc["search_stopped_for_time"] = {{"elapsed_s", r.search_stopped_for_time->elapsed_s},
                                      {"reserved_s", r.search_stopped_for_time->reserved_s}};
  if (r.remeasure_top_within_time) doc["remeasure_top_within_time"] = *r.remeasure_top_within_time;
  doc["remeasure"] = RemeasureEndName(r.remeasure_end);
  for (const auto* list : {&r.remeasure_candidates, &r.remeasured}) {
    Json rem = Json::array();
    for (const Remeasured& m : *list) {
      // No mean without a run, no interval from fewer than 2.
      Json e = {{"trial", m.number},
                {"params", ParamsJson(m.params, in.space)},
                {"objective", m.objective},
                {"role", m.role},
                {"n", m.n},
                {"mean", m.n > 0 ? Json(m.mean) : Json(nullptr)},
                {"ci95_low", m.n > 1 ? Json(m.ci_low) : Json(nullptr)},
                {"ci95_high", m.n > 1 ? Json(m.ci_high) : Json(nullptr)},
                {"raced_away", m.raced_away}};
      if (!m.shortfall.empty()) e["shortfall"] = m.shortfall;
      rem.push_back(std::move(e));
    }
    doc[list == &r.remeasured ? "remeasured" : "remeasure_candidates"] = rem;
  }
  if (!r.pareto.empty()) {
    Json front = Json::array();
    for (size_t i : r.pareto)
      front.push_back({{"trial", r.trials[i].number}, {"params", ParamsJson(r.trials[i].params, in.space)},
                       {"metrics", r.trials[i].metrics}});
    doc["pareto_front"] = front;
  }
  Json hist = Json::array();
  for (const TrialSummary& t : r.trials) {
    if (t.state == TrialState::kInfeasible) continue;  // replay: thousands of free lookups
    Json h = {{"number", t.number}, {"state", TrialStateName(t.state)}, {"params", ParamsJson(t.params, in.space)},
              {"sampler", t.sampler}};
    if (t.state == TrialState::kComplete) h["metrics"] = t.metrics;
    if (!t.reason.empty()) h["reason"] = t.reason;
    hist.push_back(std::move(h));
  }
  doc["history"] = hist;
  return doc.dump(-1, ' ', false, Json::error_handler_t::replace) + "\n";
}

std::string TuneSummaryText(const TuneSummaryInput& in) {
  const TuneResult& r = in.r;
  const TuneOutcome o = TuneOutcomeOf(in);
  int64_t failed = 0, infeasible = 0;
  for (const TrialSummary& t : r.trials) {
    failed += t.state == TrialState::kFailed;
    infeasible += t.state == TrialState::kInfeasible;
  }
  std::string text = fmt::format("study {} ({}): {} evaluations ({} failed), {} infeasible, {} resumed\n",
                                 r.study_name, in.storage_url, r.evaluations, failed, infeasible, r.resumed);
  if (o.exhausted)
    text += fmt::format("the space is exhausted: all {} configurations were tried, fewer than --budget {}\n",
                        in.space.Enumerated()->size(), in.options.budget);
  if (r.evaluations > in.options.budget && r.run_here == 0)
    text += fmt::format("the study already had {} evaluations, more than --budget {}: none was run\n",
                        r.evaluations, in.options.budget);
  for (const std::string& note : TimeLimitNotes(in)) text += note + "\n";
  const Remeasured* best_rem = r.best ? RemeasuredOf(r, *r.best) : nullptr;
  const Remeasured* default_rem = r.default_trial ? RemeasuredOf(r, *r.default_trial) : nullptr;
  if (r.best) {
    const TrialSummary& b = r.trials[*r.best];
    text += fmt::format("best     {} = {}{} (trial {}){}\n         {}\n", o.objective,
                        o.best_value ? FormatValueText(*o.best_value) : "?", IntervalText(best_rem), b.number,
                        SearchValueNote(o.best_fresh_failed), ParamsText(b.params));
  } else if (r.evaluations == 0 && !r.stopped_at_time_limit.empty()) {
    text += "best     none: no trial finished within --time\n";
  } else {
    text += "best     none: no trial succeeded\n";
  }
  const bool default_remeasured = std::any_of(r.remeasured.begin(), r.remeasured.end(),
                                              [](const Remeasured& m) { return m.role == "default"; });
  if (!r.remeasure_candidates.empty())
    text += r.remeasured.empty() ? "fresh runs to choose the best:\n"
            : default_remeasured
                ? "chosen by fresh runs (then the best and the default were measured again for "
                  "their lines):\n"
                : "chosen by fresh runs (then the best was measured again for its line):\n";
  for (const Remeasured& m : r.remeasure_candidates)
    text += fmt::format("  trial {}: {}{}\n", m.number, RemeasuredValueText(m),
                        r.best && m.number == r.trials[*r.best].number ? " <- chosen"
                        : m.raced_away                                 ? kRacedAwayNote
                                                                       : "");
  const bool default_is_best = r.best && r.default_trial && *r.best == *r.default_trial;
  if (o.default_value) {
    text += fmt::format("default  {} = {}{}{}{}{}\n", o.objective, FormatValueText(*o.default_value),
                        IntervalText(default_rem), SearchValueNote(o.default_fresh_failed),
                        default_is_best ? " -> the default is the best configuration found"
                        : o.improvement ? " -> " + ImprovementText(100 * *o.improvement)
                                        : "",
                        o.keep_default ? " (" + KeepDefaultNote(o) + ")" : "");
  } else if (r.default_trial && r.trials[*r.default_trial].state == TrialState::kFailed) {
    // Without this line a failing baseline looks like a study that never ran it.
    text += fmt::format("default  failed: {}\n", r.trials[*r.default_trial].reason);
  } else if (std::optional<std::string> unmeasured = UnmeasuredDefault(in)) {
    text += "default  " + *unmeasured + "\n";
  }
  if (!r.pareto.empty()) {
    text += "pareto front\n";
    for (size_t i : r.pareto) {
      std::string vals;
      for (const ObjectiveSpec& obj : r.objectives)
        if (auto it = r.trials[i].metrics.find(obj.name); it != r.trials[i].metrics.end())
          vals += fmt::format("{}{}={}", vals.empty() ? "" : " ", obj.name, FormatValueText(it->second));
      text += fmt::format("  trial {}: {} | {}\n", r.trials[i].number, vals, ParamsText(r.trials[i].params));
    }
  }
  return text;
}

ProgressFn TuneProgressPrinter(std::ostream& err, const std::vector<ObjectiveSpec>& objectives) {
  // Configurations found infeasible (absent from a replay cache) cost nothing and can outnumber
  // evaluations a hundred to one: they are counted into the next line instead of one line each.
  auto infeasible_unreported = std::make_shared<int64_t>(0);
  return [&err, objectives, infeasible_unreported](const Progress& p) {
    if (const Remeasured* m = p.remeasured) {
      // Each configuration runs max(3, --repeats) more times here: minutes of silence otherwise.
      // Each stage counts its own configurations.
      const bool choosing = m->role == "candidate";
      err << fmt::format("[re-measured {}{}/{}] trial {}{}: {}{}\n", choosing ? "" : "again ", p.evaluations,
                         p.budget, m->number, choosing ? "" : " (the " + m->role + ", for the result)",
                         RemeasuredValueText(*m), m->raced_away ? kRacedAwayNote : "");
      err.flush();
      return;
    }
    const TrialSummary& t = *p.trial;
    if (t.state == TrialState::kInfeasible) {
      ++*infeasible_unreported;
      return;
    }
    std::string skipped =
        *infeasible_unreported ? fmt::format(" (after {} infeasible)", std::exchange(*infeasible_unreported, 0)) : "";
    std::string what;
    if (t.state == TrialState::kComplete) {
      for (const ObjectiveSpec& obj : objectives)
        if (auto it = t.metrics.find(obj.name); it != t.metrics.end())
          what += fmt::format("{}{}={}", what.empty() ? "" : " ", obj.name, FormatValueText(it->second));
      if (what.empty() && !t.metrics.empty())
        what = t.metrics.begin()->first + "=" + FormatValueText(t.metrics.begin()->second);
      if (!t.reason.empty()) what += " (" + t.reason + ")";  // "raced out after 2 of 3 repeats"
    } else {
      what = std::string(TrialStateName(t.state)) + (t.reason.empty() ? "" : ": " + t.reason);
    }
    std::string eta = p.eta_s >= 0 ? " eta " + FormatRemaining(p.eta_s) : "";
    err << fmt::format("[{}/{}] trial {}{} {} | best {}{} | {}\n", p.evaluations, p.budget, t.number, skipped, what,
                       p.best_value ? FormatValueText(*p.best_value) : "-", eta, ParamsText(t.params));
    err.flush();
  };
}

}  // namespace cprof::cli
