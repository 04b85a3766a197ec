// JSON, Markdown and HTML of an operator-level trace diff.
#include "report/compare/trace_diff_report.h"

#include <cmath>

#include <fmt/core.h>

#include "base/short_name.h"
#include "report/compare/report_text.h"
#include "stats/effect_size.h"

namespace cprof {
namespace {

using nlohmann::ordered_json;

ordered_json Num(double v) { return std::isnan(v) ? ordered_json(nullptr) : ordered_json(v); }

std::string Ms(double ns) { return FormatInUnit(ns, "ns"); }

std::string SignedMs(double ns) { return (ns > 0 ? "+" : "") + Ms(ns); }

std::string OpLabel(const OpDiff& op) {
  // Kernel names can run to a thousand characters: cut for tables, still distinct (the JSON keeps
  // the full name).
  std::string s = ShortName(op.name, 110);
  if (!op.shapes.empty()) s += " " + op.shapes;
  if (op.device) s += " [device]";
  return s;
}

ordered_json SideJson(const OpSideStats& s) {
  return {{"count", s.count}, {"total_ns", s.total_ns}, {"self_ns", s.self_ns}, {"mean_ns", s.mean_ns},
          {"p50_ns", s.p50_ns}, {"max_ns", s.max_ns}, {"max_ts_ns", s.max_ts_ns}};
}

ordered_json OpJson(const OpDiff& op) {
  ordered_json j = {{"name", op.name},
                    {"shapes", op.shapes},
                    {"device", op.device},
                    {"category", op.category},
                    {"presence", std::string(OpPresenceName(op.presence))},
                    {"baseline", SideJson(op.baseline)},
                    {"target", SideJson(op.target)},
                    {"delta_count", op.delta_count},
                    {"delta_total_ns", op.delta_total_ns},
                    {"delta_self_ns", op.delta_self_ns},
                    {"delta_self_per_baseline_steps_ns", op.delta_self_norm_ns},
                    {"delta_total_pct", Num(op.delta_total_pct)}};
  if (op.baseline_names.size() > 1 || op.target_names.size() > 1 ||
      (!op.baseline_names.empty() && op.baseline_names[0] != op.name) ||
      (!op.target_names.empty() && op.target_names[0] != op.name)) {
    j["baseline_names"] = op.baseline_names;
    j["target_names"] = op.target_names;
  }
  if (op.tested) {
    j["significance"] = {{"test", "mann-whitney"},     {"unit", op.test_unit},
                         {"n_baseline", op.n_baseline}, {"n_target", op.n_target},
                         {"p_value", Num(op.p_value)},  {"p_adjusted", Num(op.p_adjusted)}, {"adjustment", "benjamini-hochberg"},
                         {"hodges_lehmann_ns", Num(op.hodges_lehmann_ns)},
                         {"cliffs_delta", Num(op.cliffs_delta)}, {"significant", op.significant}};
  }
  if (op.sequence_aligned) {
    j["largest_sequence_change"] = {{"index", op.seq_index},
                                    {"baseline_ts_ns", op.seq_baseline_ts_ns},
                                    {"target_ts_ns", op.seq_target_ts_ns},
                                    {"baseline_dur_ns", op.seq_baseline_dur_ns},
                                    {"target_dur_ns", op.seq_target_dur_ns}};
  }
  return j;
}

ordered_json SummaryJson(const TraceSideSummary& s, const std::string& label) {
  ordered_json j = {{"source", label}, {"source_format", s.source_format}, {"span_ns", s.span_ns},
                    {"op_instances", s.op_instances}, {"step_count", s.steps.size()}};
  ordered_json steps = ordered_json::array();
  for (const Step& st : s.steps) steps.push_back({{"id", st.id}, {"start_ns", st.start_ns}, {"dur_ns", st.dur_ns}});
  j["steps"] = steps;
  if (s.gpu) {
    j["gpu_timeline_ns"] = {{"computation", s.gpu->computation_ns}, {"exposed_comm", s.gpu->exposed_comm_ns},
                            {"exposed_memcpy", s.gpu->exposed_memcpy_ns}, {"busy", s.gpu->busy_ns},
                            {"idle", s.gpu->idle_ns}, {"total", s.gpu->total_ns}};
  }
  return j;
}

std::string Evidence(const OpDiff& op) {
  std::string e = fmt::format("count {} → {}, self {} → {}, total {} → {}", op.baseline.count, op.target.count,
                              Ms(static_cast<double>(op.baseline.self_ns)), Ms(static_cast<double>(op.target.self_ns)),
                              Ms(static_cast<double>(op.baseline.total_ns)), Ms(static_cast<double>(op.target.total_ns)));
  if (op.tested) {
    e += fmt::format("; {} Mann-Whitney p = {} (BH {}), shift {}{}", op.test_unit, FormatP(op.p_value),
                     FormatP(op.p_adjusted), SignedMs(op.hodges_lehmann_ns), op.significant ? ", significant" : "");
  } else {
    e += "; too few samples for a test";
  }
  if (op.baseline.count > 0) e += fmt::format("; slowest baseline instance {} at ts {} ns", Ms(static_cast<double>(op.baseline.max_ns)), op.baseline.max_ts_ns);
  if (op.target.count > 0) e += fmt::format("; slowest target instance {} at ts {} ns", Ms(static_cast<double>(op.target.max_ns)), op.target.max_ts_ns);
  if (op.sequence_aligned)
    e += fmt::format("; by sequence, instance #{} changed most: {} → {}", op.seq_index,
                     Ms(static_cast<double>(op.seq_baseline_dur_ns)), Ms(static_cast<double>(op.seq_target_dur_ns)));
  return e;
}

std::string StepLine(const TraceDiff& d) {
  if (!d.step_time) return "";
  const SampleComparison& c = *d.step_time;
  return fmt::format("step time (median): {} → {} ({}, 95% CI [{}, {}]), Mann-Whitney p = {}, {} vs {} steps",
                     FormatInUnit(c.before.estimate * 1e6, "ns"), FormatInUnit(c.after.estimate * 1e6, "ns"),
                     FormatPct(c.change_pct), FormatPct(c.change_ci_low_pct), FormatPct(c.change_ci_high_pct),
                     FormatP(c.p_value), c.n_before, c.n_after);
}

}  // namespace

ordered_json TraceDiffJson(const TraceDiff& d, const DiffLabels& labels) {
  ordered_json doc;
  doc["baseline"] = SummaryJson(d.baseline, labels.baseline);
  doc["target"] = SummaryJson(d.target, labels.target);
  if (d.step_time) {
    const SampleComparison& c = *d.step_time;
    doc["step_time"] = {{"statistic", c.statistic.Name()},
                        {"unit", "ms"},
                        {"baseline", Num(c.before.estimate)},
                        {"target", Num(c.after.estimate)},
                        {"change_pct", Num(c.change_pct)},
                        {"ci", c.change_ci_valid ? ordered_json::array({c.change_ci_low_pct, c.change_ci_high_pct})
                                                 : ordered_json(nullptr)},
                        {"p_value", Num(c.p_value)},
                        {"test_detail", c.test_detail},
                        {"cliffs_delta", Num(c.cliffs_delta)},
                        {"n_baseline", c.n_before},
                        {"n_target", c.n_after},
                        {"warnings", c.warnings}};
  }
  ordered_json cats = ordered_json::array();
  for (const CategoryDiff& c : d.categories)
    cats.push_back({{"category", c.category}, {"baseline_self_ns", c.baseline_ns}, {"target_self_ns", c.target_ns},
                    {"delta_ns", c.target_ns - c.baseline_ns}});
  doc["categories"] = cats;
  doc["new_ops"] = d.new_ops;
  doc["vanished_ops"] = d.vanished_ops;
  doc["significant_ops"] = d.significant_ops;
  ordered_json reg = ordered_json::array(), imp = ordered_json::array();
  for (size_t i : d.top_regressions) reg.push_back(OpJson(d.ops[i]));
  for (size_t i : d.top_improvements) imp.push_back(OpJson(d.ops[i]));
  doc["top_regressions"] = reg;
  doc["top_improvements"] = imp;
  ordered_json ops = ordered_json::array();
  for (const OpDiff& op : d.ops) ops.push_back(OpJson(op));
  doc["ops"] = ops;
  doc["notes"] = d.notes;
  return doc;
}

std::string TraceDiffMarkdown(const TraceDiff& d, const DiffLabels& labels) {
  std::string md = "# Trace comparison\n\n";
  md += fmt::format("- baseline: {} ({} steps, {} op instances, span {})\n", MdCell(labels.baseline),
                    d.baseline.steps.size(), d.baseline.op_instances, Ms(static_cast<double>(d.baseline.span_ns)));
  md += fmt::format("- target: {} ({} steps, {} op instances, span {})\n", MdCell(labels.target), d.target.steps.size(),
                    d.target.op_instances, Ms(static_cast<double>(d.target.span_ns)));
  if (d.step_time) md += "- " + StepLine(d) + "\n";
  md += fmt::format("- ops: {} aligned rows, {} new, {} vanished, {} significant (Benjamini-Hochberg, FDR)\n\n", d.ops.size(), d.new_ops,
                    d.vanished_ops, d.significant_ops);
  for (const std::string& n : d.notes) md += "> " + n + "\n\n";

  auto top = [&](const char* title, const std::vector<size_t>& rows) {
    md += fmt::format("## {}\n\n", title);
    if (rows.empty()) md += "none\n\n";
    for (size_t k = 0; k < rows.size(); ++k) {
      const OpDiff& op = d.ops[rows[k]];
      md += fmt::format("{}. `{}` ({}): self {}{}  \n   {}\n", k + 1, MdCell(OpLabel(op)),
                        OpPresenceName(op.presence), SignedMs(op.delta_self_norm_ns),
                        op.significant ? " — **significant**" : "", MdCell(Evidence(op)));
    }
    md += "\n";
  };
  top("Top regressions", d.top_regressions);
  top("Top improvements", d.top_improvements);

  md += "## Time by category (self time)\n\n| category | baseline | target | change |\n|---|---|---|---|\n";
  for (const CategoryDiff& c : d.categories)
    md += fmt::format("| {} | {} | {} | {} |\n", MdCell(c.category), Ms(static_cast<double>(c.baseline_ns)),
                      Ms(static_cast<double>(c.target_ns)), SignedMs(static_cast<double>(c.target_ns - c.baseline_ns)));
  if (d.baseline.gpu || d.target.gpu) {
    md += "\n## Device time breakdown (TraceLens definitions)\n\n| part | baseline | target |\n|---|---|---|\n";
    auto v = [](const std::optional<GpuTimeline>& g, int64_t GpuTimeline::*f) {
      return g ? Ms(static_cast<double>((*g).*f)) : std::string("n/a");
    };
    for (auto [name, f] : {std::pair{"computation", &GpuTimeline::computation_ns},
                           {"exposed communication", &GpuTimeline::exposed_comm_ns},
                           {"exposed memcpy", &GpuTimeline::exposed_memcpy_ns},
                           {"busy", &GpuTimeline::busy_ns},
                           {"idle", &GpuTimeline::idle_ns},
                           {"total", &GpuTimeline::total_ns}})
      md += fmt::format("| {} | {} | {} |\n", name, v(d.baseline.gpu, f), v(d.target.gpu, f));
  }
  md += "\n## Operators\n\n| op | presence | count | self baseline | self target | Δ self | Δ total % | p (BH) |\n"
        "|---|---|---|---|---|---|---|---|\n";
  for (size_t i = 0; i < d.ops.size() && i < labels.max_ops; ++i) {
    const OpDiff& op = d.ops[i];
    md += fmt::format("| `{}` | {} | {} → {} | {} | {} | {} | {} | {} |\n", MdCell(OpLabel(op)),
                      OpPresenceName(op.presence), op.baseline.count, op.target.count,
                      Ms(static_cast<double>(op.baseline.self_ns)), Ms(static_cast<double>(op.target.self_ns)),
                      SignedMs(static_cast<double>(op.delta_self_ns)), FormatPct(op.delta_total_pct),
                      op.tested ? FormatP(op.p_adjusted) : "n/a");
  }
  if (d.ops.size() > labels.max_ops)
    md += fmt::format("\n{} more rows in the JSON output.\n", d.ops.size() - labels.max_ops);
  return md;
}

std::string TraceDiffHtml(const TraceDiff& d, const DiffLabels& labels) {
  std::string b = "<h1>Trace comparison</h1>\n<p class=\"small\">";
  b += fmt::format("baseline: {} ({} steps, {} op instances)<br>target: {} ({} steps, {} op instances)", Html(labels.baseline),
                   d.baseline.steps.size(), d.baseline.op_instances, Html(labels.target), d.target.steps.size(),
                   d.target.op_instances);
  b += "</p>\n";
  if (d.step_time) b += "<p>" + Html(StepLine(d)) + "</p>\n";
  b += fmt::format("<p>{} aligned ops, {} new, {} vanished, {} significant (Benjamini-Hochberg, FDR).</p>\n", d.ops.size(), d.new_ops,
                   d.vanished_ops, d.significant_ops);
  for (const std::string& n : d.notes) b += "<div class=\"note\">" + Html(n) + "</div>\n";
  auto top = [&](const char* title, const std::vector<size_t>& rows) {
    b += fmt::format("<h2>{}</h2>\n<table><tr><th class=\"l\">op</th><th>Δ self</th><th class=\"l\">evidence</th></tr>\n", title);
    for (size_t i : rows) {
      const OpDiff& op = d.ops[i];
      b += fmt::format("<tr><td class=\"l\"><code>{}</code><br><span class=\"small\">{}</span></td><td>{}</td><td "
                       "class=\"l\">{}</td></tr>\n",
                       Html(OpLabel(op)), OpPresenceName(op.presence), Html(SignedMs(op.delta_self_norm_ns)),
                       Html(Evidence(op)));
    }
    b += "</table>\n";
  };
  top("Top regressions", d.top_regressions);
  top("Top improvements", d.top_improvements);
  b += "<h2>Time by category (self time)</h2>\n<table><tr><th class=\"l\">category</th><th>baseline</th><th>target</th><th>change</th></tr>\n";
  for (const CategoryDiff& c : d.categories)
    b += fmt::format("<tr><td class=\"l\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n", Html(c.category),
                     Html(Ms(static_cast<double>(c.baseline_ns))), Html(Ms(static_cast<double>(c.target_ns))),
                     Html(SignedMs(static_cast<double>(c.target_ns - c.baseline_ns))));
  b += "</table>\n<h2>Operators</h2>\n<table><tr><th class=\"l\">op</th><th>presence</th><th>count</th><th>self "
       "baseline</th><th>self target</th><th>Δ self</th><th>Δ total %</th><th>p (BH)</th></tr>\n";
  for (size_t i = 0; i < d.ops.size() && i < labels.max_ops; ++i) {
    const OpDiff& op = d.ops[i];
    b += fmt::format("<tr><td class=\"l\"><code>{}</code></td><td>{}</td><td>{} → {}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
                     Html(OpLabel(op)), OpPresenceName(op.presence), op.baseline.count, op.target.count,
                     Html(Ms(static_cast<double>(op.baseline.self_ns))), Html(Ms(static_cast<double>(op.target.self_ns))),
                     Html(SignedMs(static_cast<double>(op.delta_self_ns))), Html(FormatPct(op.delta_total_pct)),
                     op.tested ? Html(FormatP(op.p_adjusted)) : "n/a");
  }
  b += "</table>\n";
  return StaticHtmlPage("trace comparison", b);
}

}  // namespace cprof
