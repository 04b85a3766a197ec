// JSON, Markdown and HTML of a validation.
#include "report/compare/validation_report.h"

#include <algorithm>
#include <cmath>

#include <fmt/core.h>
#include <fmt/format.h>

#include "report/compare/report_text.h"
#include "stats/effect_size.h"

namespace cprof {
namespace {

using nlohmann::ordered_json;

ordered_json Num(double v) { return std::isnan(v) ? ordered_json(nullptr) : ordered_json(v); }

ordered_json Pair(double a, double b, bool valid = true) {
  if (!valid) return ordered_json(nullptr);
  return ordered_json::array({Num(a), Num(b)});
}

std::vector<int64_t> OutlierIds(const OutlierReport& o, const std::vector<int64_t>& ids) {
  std::vector<int64_t> out;
  for (size_t i : o.indices) out.push_back(i < ids.size() ? ids[i] : static_cast<int64_t>(i));
  return out;
}

std::string TestTitle(TwoSampleTest t) {
  switch (t) {
    case TwoSampleTest::kWelchT: return "Welch's t-test";
    case TwoSampleTest::kMannWhitney: return "Mann-Whitney U";
    case TwoSampleTest::kBootstrap: return "bootstrap (BCa)";
  }
  return "?";
}

std::string Interval(const BootstrapResult& b, std::string_view unit) {
  if (!b.valid) return "n/a";
  return fmt::format("[{}, {}]", FormatInUnit(b.low, unit), FormatInUnit(b.high, unit));
}

std::string ChangeInterval(const SampleComparison& c) {
  if (!c.change_ci_valid) return "n/a";
  return fmt::format("[{}, {}]", FormatPct(c.change_ci_low_pct), FormatPct(c.change_ci_high_pct));
}

std::string Settings(const ValidationResult& r) {
  return fmt::format("{}, alpha {:g} (Holm-Bonferroni over {} metric{}), noise threshold {:g}%, unit of "
                     "replication: {}{}",
                     TestTitle(r.test), r.alpha, r.metrics.size(), r.metrics.size() == 1 ? "" : "s",
                     r.min_effect_pct, r.unit,
                     r.resamples > 0 ? fmt::format(", {} bootstrap resamples", r.resamples) : "");
}

ordered_json RunLevelJson(const RunLevelResult& r) {
  if (!r.valid) return ordered_json(nullptr);
  return {{"batches", r.batches}, {"scale", r.log_scale ? "log" : "linear"}, {"t", Num(r.t)}, {"df", r.df},
          {"p_value", Num(r.p_value)}};
}

std::string RunLevelLine(const RunLevelResult& r) {
  if (!r.valid) return "run-level test: not run (fewer than 6 steps a side); no change can be called";
  return fmt::format("run-level test ({} batches a run, {} scale): t = {:.2f}, df = {:g}, p = {}", r.batches,
                     r.log_scale ? "log" : "linear", r.t, r.df, FormatP(r.p_value));
}

// A strip plot of the two samples: one dot per value, the statistic as a bar.
std::string StripPlot(const MetricValidation& m) {
  const auto& b = m.before_values;
  const auto& a = m.after_values;
  if (b.empty() || a.empty()) return "";
  double lo = std::min(*std::min_element(b.begin(), b.end()), *std::min_element(a.begin(), a.end()));
  double hi = std::max(*std::max_element(b.begin(), b.end()), *std::max_element(a.begin(), a.end()));
  if (hi <= lo) hi = lo + 1;
  const double w = 640, h = 120, left = 70, right = 20;
  auto x = [&](double v) { return left + (v - lo) / (hi - lo) * (w - left - right); };
  std::string svg = fmt::format("<svg width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\" role=\"img\">", w, h, w, h);
  auto row = [&](const std::vector<double>& v, double y, const char* label, const char* color, double stat) {
    svg += fmt::format("<text x=\"4\" y=\"{}\" font-size=\"12\">{}</text>", y + 4, label);
    // Deterministic jitter so overlapping dots stay visible.
    for (size_t i = 0; i < v.size(); ++i) {
      const double jitter = (static_cast<double>((i * 2654435761u) % 1000) / 1000.0 - 0.5) * 18;
      svg += fmt::format("<circle cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"2.2\" fill=\"{}\" fill-opacity=\"0.55\"/>", x(v[i]),
                         y + jitter, color);
    }
    if (!std::isnan(stat))
      svg += fmt::format("<line x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1}\" y2=\"{2}\" stroke=\"#111\" stroke-width=\"2\"/>",
                         x(stat), y - 14, y + 14);
  };
  row(b, 35, "before", "#4062bb", m.comparison.before.estimate);
  row(a, 80, "after", "#d1495b", m.comparison.after.estimate);
  svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\">{}</text>", left, h - 4,
                     Html(FormatInUnit(lo, m.metric.unit)));
  svg += fmt::format("<text x=\"{}\" y=\"{}\" font-size=\"11\" text-anchor=\"end\">{}</text>", w - right, h - 4,
                     Html(FormatInUnit(hi, m.metric.unit)));
  svg += "</svg>";
  return svg;
}

}  // namespace

ordered_json ValidationJson(const ValidationResult& r) {
  ordered_json doc;
  doc["verdict"] = std::string(VerdictName(r.verdict));
  doc["statistical_test"] = std::string(TwoSampleTestName(r.test));
  doc["alpha"] = r.alpha;
  doc["min_effect_pct"] = r.min_effect_pct;
  doc["unit_of_replication"] = r.unit;
  doc["multiple_comparisons"] = "holm-bonferroni";
  doc["bootstrap_resamples"] = r.resamples;
  doc["before"] = {{"runs", r.before_labels}};
  doc["after"] = {{"runs", r.after_labels}};
  ordered_json metrics = ordered_json::array();
  for (const MetricValidation& m : r.metrics) {
    const SampleComparison& c = m.comparison;
    ordered_json j;
    j["name"] = m.metric.name;
    j["unit"] = m.metric.unit;
    j["better"] = m.metric.direction == MetricDirection::kHigherIsBetter ? "higher" : "lower";
    j["statistic"] = m.statistic.Name();
    j["before"] = Num(c.before.estimate);
    j["after"] = Num(c.after.estimate);
    j["before_ci"] = Pair(c.before.low, c.before.high, c.before.valid);
    j["after_ci"] = Pair(c.after.low, c.after.high, c.after.valid);
    j["change_pct"] = Num(c.change_pct);
    j["ci"] = Pair(c.change_ci_low_pct, c.change_ci_high_pct, c.change_ci_valid);
    j["p_value"] = Num(m.p_adjusted);
    j["p_value_raw"] = Num(c.p_value);
    j["test_detail"] = c.test_detail;
    j["effect_size"] = Num(c.cliffs_delta);
    j["effect_size_name"] = "cliffs_delta";
    j["effect_size_magnitude"] = std::isnan(c.cliffs_delta) ? "" : std::string(CliffsDeltaMagnitude(c.cliffs_delta));
    j["hodges_lehmann"] = Num(c.hodges_lehmann);
    j["n_before"] = c.n_before;
    j["n_after"] = c.n_after;
    j["verdict"] = std::string(VerdictName(m.verdict));
    j["reason"] = m.reason;
    j["outliers"] = {{"method", "modified z-score > 3.5 (MAD)"},
                     {"before", OutlierIds(c.outliers_before, m.before_ids)},
                     {"after", OutlierIds(c.outliers_after, m.after_ids)}};
    if (r.unit == "step") {
      j["autocorrelation_lag1"] = {{"before", m.before_autocorrelation}, {"after", m.after_autocorrelation}};
      j["run_level_test"] = RunLevelJson(m.run_level);
    }
    j["warnings"] = c.warnings;
    j["samples"] = {{"id_kind", r.unit == "step" ? "step id" : "run index"},
                    {"before_ids", m.before_ids},
                    {"before", m.before_values},
                    {"after_ids", m.after_ids},
                    {"after", m.after_values}};
    metrics.push_back(std::move(j));
  }
  doc["metrics"] = std::move(metrics);
  doc["notes"] = r.notes;
  return doc;
}

std::string ValidationMarkdown(const ValidationResult& r) {
  std::string md = "# Validation report\n\n";
  md += fmt::format("**Verdict: {}**\n\n", VerdictName(r.verdict));
  md += fmt::format("- before: {}\n- after: {}\n- method: {}\n\n", MdCell(fmt::format("{}", fmt::join(r.before_labels, ", "))),
                    MdCell(fmt::format("{}", fmt::join(r.after_labels, ", "))), Settings(r));
  md += "| metric | statistic | before [CI] | after [CI] | change [CI] | p (Holm) | Cliff's delta | n before/after | verdict |\n";
  md += "|---|---|---|---|---|---|---|---|---|\n";
  for (const MetricValidation& m : r.metrics) {
    const SampleComparison& c = m.comparison;
    md += fmt::format("| {} | {} | {} {} | {} {} | {} {} | {} | {:.3f} ({}) | {}/{} | **{}** |\n", m.metric.name,
                      m.statistic.Name(), FormatInUnit(c.before.estimate, m.metric.unit), Interval(c.before, m.metric.unit),
                      FormatInUnit(c.after.estimate, m.metric.unit), Interval(c.after, m.metric.unit),
                      FormatPct(c.change_pct), ChangeInterval(c), FormatP(m.p_adjusted), c.cliffs_delta,
                      std::isnan(c.cliffs_delta) ? "" : CliffsDeltaMagnitude(c.cliffs_delta), c.n_before, c.n_after,
                      VerdictName(m.verdict));
  }
  md += "\n";
  for (const MetricValidation& m : r.metrics) {
    const SampleComparison& c = m.comparison;
    md += fmt::format("## {}\n\n", m.metric.name);
    md += fmt::format("- {}: {}\n", VerdictName(m.verdict), m.reason);
    md += fmt::format("- test: {}; raw p = {}\n", c.test_detail.empty() ? "not run" : c.test_detail, FormatP(c.p_value));
    md += fmt::format("- shift (Hodges-Lehmann, after - before): {}\n", FormatInUnit(c.hodges_lehmann, m.metric.unit));
    md += fmt::format("- outliers (MAD, reported, not removed): {} before, {} after\n", c.outliers_before.indices.size(),
                      c.outliers_after.indices.size());
    if (r.unit == "step") {
      md += fmt::format("- {}\n", RunLevelLine(m.run_level));
      md += fmt::format("- lag-1 autocorrelation of the steps: {:.2f} before, {:.2f} after\n", m.before_autocorrelation,
                        m.after_autocorrelation);
    }
    for (const std::string& w : c.warnings) md += fmt::format("- warning: {}\n", w);
    md += "\n";
  }
  if (!r.notes.empty()) {
    md += "## Notes\n\n";
    for (const std::string& n : r.notes) md += fmt::format("- {}\n", n);
  }
  return md;
}

std::string ValidationHtml(const ValidationResult& r) {
  std::string b = "<h1>Validation report</h1>\n";
  b += fmt::format("<p>Verdict: <span class=\"verdict {0}\">{0}</span></p>\n", VerdictName(r.verdict));
  b += fmt::format("<p class=\"small\">before: {}<br>after: {}<br>{}</p>\n",
                   Html(fmt::format("{}", fmt::join(r.before_labels, ", "))),
                   Html(fmt::format("{}", fmt::join(r.after_labels, ", "))), Html(Settings(r)));
  for (const std::string& n : r.notes) b += "<div class=\"note\">" + Html(n) + "</div>\n";
  b += "<table><tr><th class=\"l\">metric</th><th>statistic</th><th>before [CI]</th><th>after [CI]</th><th>change "
       "[CI]</th><th>p (Holm)</th><th>Cliff's delta</th><th>n</th><th>verdict</th></tr>\n";
  for (const MetricValidation& m : r.metrics) {
    const SampleComparison& c = m.comparison;
    const std::string_view verdict = VerdictName(m.verdict);
    b += fmt::format("<tr><td class=\"l\">{}</td><td>{}</td>", Html(m.metric.name), Html(m.statistic.Name()));
    b += fmt::format("<td>{}<br><span class=\"small\">{}</span></td>", Html(FormatInUnit(c.before.estimate, m.metric.unit)),
                     Html(Interval(c.before, m.metric.unit)));
    b += fmt::format("<td>{}<br><span class=\"small\">{}</span></td>", Html(FormatInUnit(c.after.estimate, m.metric.unit)),
                     Html(Interval(c.after, m.metric.unit)));
    b += fmt::format("<td>{}<br><span class=\"small\">{}</span></td>", Html(FormatPct(c.change_pct)),
                     Html(ChangeInterval(c)));
    b += fmt::format("<td>{}</td><td>{:.3f}<br><span class=\"small\">{}</span></td><td>{} / {}</td>",
                     Html(FormatP(m.p_adjusted)), c.cliffs_delta,
                     std::isnan(c.cliffs_delta) ? "" : CliffsDeltaMagnitude(c.cliffs_delta), c.n_before, c.n_after);
    b += fmt::format("<td><span class=\"verdict {0}\">{0}</span></td></tr>\n", verdict);
  }
  b += "</table>\n";
  for (const MetricValidation& m : r.metrics) {
    const SampleComparison& c = m.comparison;
    b += fmt::format("<h2>{}</h2>\n<p><span class=\"verdict {}\">{}</span> {}</p>\n", Html(m.metric.name),
                     VerdictName(m.verdict), VerdictName(m.verdict), Html(m.reason));
    b += StripPlot(m);
    b += "<ul>";
    b += fmt::format("<li>test: {}; raw p = {}</li>", Html(c.test_detail.empty() ? "not run" : c.test_detail),
                     Html(FormatP(c.p_value)));
    b += fmt::format("<li>shift (Hodges-Lehmann, after − before): {}</li>",
                     Html(FormatInUnit(c.hodges_lehmann, m.metric.unit)));
    b += fmt::format("<li>outliers (MAD, reported, not removed): {} before, {} after</li>",
                     c.outliers_before.indices.size(), c.outliers_after.indices.size());
    if (r.unit == "step") {
      b += "<li>" + Html(RunLevelLine(m.run_level)) + "</li>";
      b += fmt::format("<li>lag-1 autocorrelation of the steps: {:.2f} before, {:.2f} after</li>",
                       m.before_autocorrelation, m.after_autocorrelation);
    }
    b += "</ul>\n";
    for (const std::string& w : c.warnings) b += "<div class=\"note\">" + Html(w) + "</div>\n";
  }
  return StaticHtmlPage("validation report", b);
}

}  // namespace cprof
