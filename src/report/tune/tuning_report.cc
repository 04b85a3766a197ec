// HTML of a tuning study: see tuning_report.h.
#include "report/tune/tuning_report.h"

#include <fmt/core.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "report/compare/report_text.h"

namespace cprof {
namespace {

std::string Num(double v) { return fmt::format("{:.4g}", v); }

bool Better(double a, double b, bool maximize) { return maximize ? a > b : a < b; }

// Tick values for an axis over [lo, hi], given in the axis's scale (log10 of the value on a log
// axis), at round numbers: on a log axis the powers of ten when three or more fall inside (every
// k-th when more than six), else 1, 2 and 5 times them; on a linear axis the multiples of the
// largest 1-2-5 step that puts four or more inside.
std::vector<double> AxisTicks(double lo, double hi, bool log_axis) {
  std::vector<double> ticks;
  if (log_axis) {
    const double first = std::ceil(lo), decades = std::floor(hi) - first + 1;
    if (decades >= 3) {
      const double stride = std::ceil(decades / 6);
      for (double e = first; e <= hi; e += stride) ticks.push_back(std::pow(10.0, e));
      return ticks;
    }
    for (double e = std::floor(lo); e <= std::ceil(hi); ++e)
      for (double m : {1.0, 2.0, 5.0}) {
        const double v = m * std::pow(10.0, e);
        if (std::log10(v) >= lo && std::log10(v) <= hi) ticks.push_back(v);
      }
    return ticks;
  }
  // Values a few ulps apart (0.1 + 0.2 and 0.3) give a range too narrow for round steps: k / step
  // past 2^53 would not advance. The ends then.
  if (!(hi - lo > 1e-9 * std::max(std::fabs(lo), std::fabs(hi)))) return {lo, hi};
  double magnitude = std::pow(10.0, std::floor(std::log10(hi - lo)));
  for (int tries = 0; tries < 8; ++tries, magnitude /= 10)
    for (double m : {5.0, 2.0, 1.0}) {
      const double step = m * magnitude, from = std::ceil(lo / step), to = std::floor(hi / step);
      if (to - from + 1 < 4 || to - from > 100) continue;
      for (int64_t k = 0; k <= static_cast<int64_t>(to - from); ++k)
        ticks.push_back((from + static_cast<double>(k)) * step);
      return ticks;
    }
  return {lo, hi};
}

}  // namespace

std::string ParamsText(const std::map<std::string, std::string>& params) {
  std::string s;
  for (const auto& [k, v] : params) s += fmt::format("{}{}={}", s.empty() ? "" : " ", k, v);
  return s;
}

std::string ImprovementText(double percent) {
  if (percent < 0) return fmt::format("{:.1f}% worse with the best", -percent);
  return fmt::format("{:+.1f}% better with the best", percent);
}

std::string ConvergenceSvg(const TuningReportData& d) {
  constexpr double kW = 760, kH = 300, kL = 70, kR = 20, kT = 20, kB = 40;
  std::vector<double> values;
  for (const TuningReportTrial& t : d.trials)
    if (t.value && std::isfinite(*t.value)) values.push_back(*t.value);
  std::string svg = fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" "
                                "viewBox=\"0 0 {} {}\" role=\"img\" aria-label=\"convergence\">",
                                kW, kH, kW, kH);
  if (values.empty() || d.trials.empty()) {
    svg += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">no complete trial</text></svg>", kW / 2, kH / 2);
    return svg;
  }
  const double vmin = *std::min_element(values.begin(), values.end());
  const double vmax = *std::max_element(values.begin(), values.end());
  // A log axis when positive values span more than 20x: otherwise one bad configuration (a 250 ms
  // trial beside 0.5-10 ms ones) flattens every other point and the best-so-far line into the axis.
  const bool log_axis = vmin > 0 && vmax / vmin > kLogAxisRatio;
  auto scale = [&](double v) { return log_axis ? std::log10(v) : v; };
  double lo = scale(vmin), hi = scale(vmax);
  if (hi <= lo) hi = lo + (lo == 0 ? 1 : std::fabs(lo) * 0.1);
  const double pad = (hi - lo) * 0.05;
  // A linear axis of non-negative values (times, sizes) does not pad below zero.
  lo = !log_axis && vmin >= 0 ? std::max(0.0, lo - pad) : lo - pad;
  hi += pad;
  const size_t n = d.trials.size();
  auto x = [&](size_t i) { return kL + (n == 1 ? 0.5 : static_cast<double>(i) / (n - 1)) * (kW - kL - kR); };
  auto y = [&](double v) { return kT + (hi - scale(v)) / (hi - lo) * (kH - kT - kB); };
  // Axes and ticks.
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{0}\" y2=\"{2}\" stroke=\"#888\"/>", kL, kT, kH - kB);
  svg += fmt::format("<line x1=\"{0}\" y1=\"{1}\" x2=\"{2}\" y2=\"{1}\" stroke=\"#888\"/>", kL, kH - kB, kW - kR);
  for (double v : AxisTicks(lo, hi, log_axis)) {
    svg += fmt::format("<text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" text-anchor=\"end\">{}</text>", kL - 6, y(v) + 4,
                       Html(Num(v)));
  }
  for (size_t i = 0; i < n; i += std::max<size_t>(1, n / 10))
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{}\" font-size=\"11\" text-anchor=\"middle\">{}</text>", x(i),
                       kH - kB + 16, d.trials[i].number);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"12\" text-anchor=\"middle\">trials in evaluation order (labels: trial number)</text>",
                     (kL + kW - kR) / 2, kH - 6);
  svg += fmt::format(
      "<text x=\"14\" y=\"{}\" font-size=\"12\" transform=\"rotate(-90 14 {})\" "
      "text-anchor=\"middle\">{}</text>",
      kH / 2, kH / 2, Html(d.objective + (log_axis ? " (log scale)" : "")));
  if (d.default_trial && d.trials[*d.default_trial].value) {
    const double yd = y(*d.trials[*d.default_trial].value);
    svg += fmt::format("<line class=\"default\" x1=\"{}\" y1=\"{:.1f}\" x2=\"{}\" y2=\"{:.1f}\" stroke=\"#c0392b\" "
                       "stroke-dasharray=\"6 4\"/><text x=\"{}\" y=\"{:.1f}\" font-size=\"11\" fill=\"#c0392b\" "
                       "text-anchor=\"end\">default</text>",
                       kL, yd, kW - kR, yd, kW - kR, yd - 4);
  }
  // Best so far: a step line through the trials in order.
  std::string path;
  std::optional<double> best;
  for (size_t i = 0; i < n; ++i) {
    const auto& v = d.trials[i].value;
    if (v && std::isfinite(*v) && (!best || Better(*v, *best, d.maximize))) {
      path += path.empty() ? fmt::format("M{:.1f},{:.1f}", x(i), y(*v))
                           : fmt::format(" H{:.1f} V{:.1f}", x(i), y(*v));
      best = *v;
    }
  }
  if (!path.empty()) {
    path += fmt::format(" H{:.1f}", x(n - 1));
    svg += "<path class=\"best\" d=\"" + path + "\" fill=\"none\" stroke=\"#1f6fd1\" stroke-width=\"2\"/>";
  }
  for (size_t i = 0; i < n; ++i) {
    const TuningReportTrial& t = d.trials[i];
    if (t.value && std::isfinite(*t.value)) {
      svg += fmt::format("<circle class=\"trial\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"{}\" fill=\"{}\"><title>trial {}: {} "
                         "{}</title></circle>",
                         x(i), y(*t.value), d.best && *d.best == i ? 6 : 4, d.best && *d.best == i ? "#12a150" : "#4a5568",
                         t.number, Html(Num(*t.value)), Html(ParamsText(t.params)));
    } else {
      svg += fmt::format("<text class=\"failed\" x=\"{:.1f}\" y=\"{}\" font-size=\"13\" fill=\"#c0392b\" "
                         "text-anchor=\"middle\">×<title>trial {} {}: {}</title></text>",
                         x(i), kT + 4, t.number, Html(t.state), Html(t.reason));
    }
  }
  svg += "</svg>";
  return svg;
}

namespace {

// Fresh measurements as a table, one row per configuration; `chosen` marks the recommendation. No
// mean without a run, no interval from fewer than 2.
std::string RemeasuredTable(const std::vector<TuningReportRemeasured>& rows, std::optional<int64_t> chosen) {
  std::string b = "<table><tr><th>trial</th><th class=\"l\">configuration</th><th>mean</th><th>95% CI</th>"
                  "<th>n</th></tr>\n";
  for (const TuningReportRemeasured& r : rows)
    b += fmt::format("<tr><td>{}{}</td><td class=\"l\"><code>{}</code></td><td>{}</td><td>{}</td><td>{}</td>"
                     "</tr>\n",
                     r.number,
                     chosen && *chosen == r.number ? " (chosen)"
                     : r.raced_away                ? kRacedAwayNote
                                                   : "",
                     Html(ParamsText(r.params)), r.n > 0 ? Html(Num(r.mean)) : "–",
                     r.n > 1 ? Html(fmt::format("[{}, {}]", Num(r.ci_low), Num(r.ci_high))) : "–", r.n);
  return b + "</table>\n";
}

}  // namespace

std::string TuningReportHtml(const TuningReportData& d) {
  std::string b = "<h1>Tuning report</h1>\n";
  b += fmt::format("<p class=\"small\">study {} · objective {} ({}) · {} trials", Html(d.study), Html(d.objective),
                   d.maximize ? "higher is better" : "lower is better", d.trials.size());
  if (!d.command.empty()) b += "<br>command: <code>" + Html(d.command) + "</code>";
  b += "</p>\n";
  if (!d.guided_start.empty())
    b += "<div class=\"note\">guided start from the diagnosis: " + Html(d.guided_start) + "</div>\n";

  b += "<h2>Result</h2>\n";
  if (!d.best) {
    b += "<p>No trial completed: no configuration to recommend.</p>\n";
  } else {
    // A re-measured configuration is reported by its mean (the recommendation is the best mean).
    auto note = [&](size_t i) -> std::string {
      if (const auto k = d.trials[i].remeasured) return fmt::format(" (re-measured mean, n={})", d.remeasured[*k].n);
      if (d.trials[i].fresh_runs_failed) return " (the search's value: every run to re-measure it failed)";
      return "";
    };
    const TuningReportTrial& best = d.trials[*d.best];
    b += fmt::format("<p>Best: trial {} — <code>{}</code> — {} = <b>{}</b>{}", best.number,
                     Html(ParamsText(best.params)), Html(d.objective), d.best_value ? Html(Num(*d.best_value)) : "?",
                     Html(note(*d.best)));
    if (d.default_trial && d.default_value) {
      b += fmt::format("; the default gave {}{}", Html(Num(*d.default_value)), Html(note(*d.default_trial)));
      if (d.improvement_pct) b += fmt::format(" ({})", ImprovementText(*d.improvement_pct));
    }
    b += "</p>\n";
  }
  for (const std::string& note : d.notes) b += "<div class=\"note\">" + Html(note) + "</div>\n";
  if (!d.remeasured.empty()) {
    b += "<p>Re-measured at the end (95% Student-t interval of the mean):</p>\n";
    b += RemeasuredTable(d.remeasured, std::nullopt);
  }
  if (!d.remeasure_candidates.empty()) {
    b += "<p class=\"small\">How the recommendation was chosen: the search's best configurations and the default, "
         "each run afresh; the best mean was chosen, then it and the default were run again for the lines "
         "above (these runs chose the winner, so they favour it).</p>\n";
    std::optional<int64_t> chosen;
    if (d.best) chosen = d.trials[*d.best].number;
    b += RemeasuredTable(d.remeasure_candidates, chosen);
  }

  if (!d.pareto.empty()) {
    b += "<h2>Pareto front</h2>\n<p class=\"small\">The configurations no other trial beats on every "
         "objective "
         "(as measured during the search); the curve and importance below follow the first objective.</p>\n"
         "<table><tr><th>trial</th>";
    for (const std::string& name : d.pareto_objectives) b += "<th>" + Html(name) + "</th>";
    b += "<th class=\"l\">configuration</th></tr>\n";
    for (const TuningReportParetoPoint& p : d.pareto) {
      b += fmt::format("<tr><td>{}</td>", p.number);
      for (double v : p.values) b += "<td>" + Html(Num(v)) + "</td>";
      b += "<td class=\"l\"><code>" + Html(ParamsText(p.params)) + "</code></td></tr>\n";
    }
    b += "</table>\n";
  }

  b += "<h2>Convergence</h2>\n";
  b += "<p class=\"small\">Dots: each trial's " + Html(d.objective) +
       " (the best in green); line: the best so far; dashed: the default configuration; ×: a failed trial.</p>\n";
  b += ConvergenceSvg(d) + "\n";

  b += "<h2>Parameter importance</h2>\n";
  if (d.importances.empty()) {
    b += "<p>Too few complete trials (fewer than 3) to tell.</p>\n";
  } else {
    // On the log of the objective when every value is positive (ParameterImportances), else on the
    // values: the page said "log" for a throughput that went below zero.
    const bool logs = std::all_of(d.trials.begin(), d.trials.end(),
                                  [](const TuningReportTrial& t) { return !t.value || *t.value > 0; });
    b += fmt::format("<p class=\"small\">Share of the objective's variance across the complete trials that each "
                     "parameter's values explain on their own (one-way ANOVA on {}, less what as many levels explain "
                     "by chance (epsilon squared), normalised to sum to 1; main effects only, interactions are not "
                     "attributed; η² as measured beside it). With few trials, read it as a hint.</p>\n",
                     logs ? "the log of the objective" : "the objective (some values are not positive: no log)");
    b += "<table><tr><th "
         "class=\"l\">parameter</th><th class=\"l\">share</th><th>η²</th><th>levels</th></tr>\n";
    for (const TuningReportImportance& p : d.importances)
      b += fmt::format("<tr><td class=\"l\">{}</td><td class=\"l\"><div class=\"bar\" style=\"width:{:.0f}px;"
                       "background:#1f6fd1;height:.8em;display:inline-block\"></div> {:.2f}</td><td>{:.3f}</td><td>{}</td></tr>\n",
                       Html(p.name), 300 * p.share, p.share, p.eta_squared, p.levels);
    b += "</table>\n";
  }

  b += "<h2>Trials</h2>\n<table><tr><th>trial</th><th class=\"l\">state</th><th>" + Html(d.objective) +
       "</th><th class=\"l\">configuration</th><th class=\"l\">sampler</th></tr>\n";
  for (size_t i = 0; i < d.trials.size(); ++i) {
    const TuningReportTrial& t = d.trials[i];
    std::string mark = d.best && *d.best == i ? " (best)" : d.default_trial && *d.default_trial == i ? " (default)" : "";
    b += fmt::format("<tr><td>{}{}</td><td class=\"l\">{}</td><td>{}</td><td class=\"l\"><code>{}</code></td><td "
                     "class=\"l\">{}</td></tr>\n",
                     t.number, mark, Html(t.state + (t.reason.empty() ? "" : ": " + t.reason)),
                     t.value ? Html(Num(*t.value)) : "", Html(ParamsText(t.params)), Html(t.sampler));
  }
  b += "</table>\n";
  return StaticHtmlPage("tuning report", b);
}

}  // namespace cprof
