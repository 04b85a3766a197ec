#include "report/tune/tuning_report.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <vector>

namespace cprof {
namespace {

size_t Count(const std::string& s, const std::string& what) {
  size_t n = 0;
  for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

TuningReportData Study() {
  TuningReportData d;
  d.study = "tune-abc";
  d.objective = "latency_ms";
  d.command = "build/examples/unet --threads {threads}";
  const double values[] = {120, 80, 95, 60, 0, 70};
  for (int i = 0; i < 6; ++i) {
    TuningReportTrial t;
    t.number = i;
    t.params = {{"threads", std::to_string(i + 1)}, {"format", i % 2 ? "channels_last" : "<b>x</b>"}};
    t.sampler = i == 0 ? "default" : "gp";
    if (i == 4) {
      t.state = "failed";
      t.reason = "exit 1";
    } else {
      t.state = "complete";
      t.value = values[i];
    }
    d.trials.push_back(t);
  }
  d.best = 3;
  d.default_trial = 0;
  d.importances = {{"threads", 0.8, 0.7, 5}, {"format", 0.2, 0.175, 2}};
  d.remeasured = {{3, d.trials[3].params, 3, 61, 58, 64}, {0, d.trials[0].params, 3, 120, 110, 130}};
  d.trials[3].remeasured = 0;
  d.trials[0].remeasured = 1;
  d.best_value = 61;  // the re-measured means, as the summary reports them
  d.default_value = 120;
  d.improvement_pct = (120.0 - 61) / 120 * 100;
  return d;
}

TEST(TuningReport, ConvergenceShowsEveryTrialTheBestSoFarAndTheDefault) {
  TuningReportData d = Study();
  std::string svg = ConvergenceSvg(d);
  EXPECT_EQ(Count(svg, "<circle class=\"trial\""), 5u);
  EXPECT_EQ(Count(svg, "class=\"failed\""), 1u);
  EXPECT_EQ(Count(svg, "class=\"default\""), 1u);
  // The best-so-far line improves three times: 120 -> 80 -> 60 (95 and 70 are not improvements).
  size_t path = svg.find("class=\"best\" d=\"");
  ASSERT_NE(path, std::string::npos);
  std::string d_attr = svg.substr(path, svg.find("\"", path + 16) - path);
  EXPECT_EQ(Count(d_attr, " V"), 2u) << d_attr;
  EXPECT_EQ(Count(svg, "fill=\"#12a150\""), 1u) << "one best dot";
}

// y of the dot of trial `number` in the svg.
double DotY(const std::string& svg, int number) {
  size_t at = svg.find("<title>trial " + std::to_string(number) + ": ");
  size_t cy = svg.rfind("cy=\"", at);
  return std::stod(svg.substr(cy + 4));
}

// One bad configuration (250 ms beside 0.5-8 ms) flattened every other dot into the axis: the
// axis turns logarithmic and says so; values within 20x of each other keep a linear axis that
// does not go below zero for a non-negative objective (it showed -11.68 for a latency).
TEST(TuningReport, WideRangesGetALogAxis) {
  TuningReportData d = Study();
  const double values[] = {8, 250, 4, 0.5, 0, 2};
  for (int i = 0; i < 6; ++i)
    if (d.trials[i].value) d.trials[i].value = values[i];
  std::string svg = ConvergenceSvg(d);
  EXPECT_NE(svg.find("latency_ms (log scale)"), std::string::npos);
  // Equal ratios are equal distances: 8 -> 4 -> 2 -> 0.5 step by 1, 1 and 2 times log10(2).
  const double step = DotY(svg, 2) - DotY(svg, 0);
  EXPECT_GT(step, 10);
  EXPECT_NEAR(DotY(svg, 5) - DotY(svg, 2), step, 0.2);
  EXPECT_NEAR(DotY(svg, 3) - DotY(svg, 5), 2 * step, 0.2);

  TuningReportData zero = Study();
  zero.trials[3].value = 0;  // 0-120 ms: no log axis
  std::string linear = ConvergenceSvg(zero);
  EXPECT_EQ(linear.find("log scale"), std::string::npos);
  EXPECT_EQ(linear.find(">-"), std::string::npos) << "a negative tick on a latency axis";
}

// The value axis's labels, largest first.
std::vector<double> AxisLabels(const std::string& svg) {
  std::vector<double> out;
  static const std::regex kLabel("text-anchor=\"end\">([-0-9.e+]+)</text>");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), kLabel); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod((*it)[1].str()));
  std::sort(out.rbegin(), out.rend());
  return out;
}

// Ticks at round values: powers of ten on a log axis that spans decades (it showed 12.96, 1.085,
// 0.09086, 0.007608, 0.000637), 1-2-5 steps otherwise, each at the height of its value.
TEST(TuningReport, AxisTicksAreRoundValues) {
  TuningReportData d = Study();
  const double wide[] = {12.96, 0.0012, 0.004, 0.000637, 0, 0.5};
  for (int i = 0; i < 6; ++i)
    if (d.trials[i].value) d.trials[i].value = wide[i];
  std::vector<double> ticks = AxisLabels(ConvergenceSvg(d));
  EXPECT_EQ(ticks, (std::vector<double>{10, 1, 0.1, 0.01, 0.001})) << ::testing::PrintToString(ticks);

  const double decade[] = {40, 3, 4, 1.9, 0, 2};  // a log axis over 1.3 decades: 1-2-5 steps
  for (int i = 0; i < 6; ++i)
    if (d.trials[i].value) d.trials[i].value = decade[i];
  ticks = AxisLabels(ConvergenceSvg(d));
  EXPECT_EQ(ticks, (std::vector<double>{20, 10, 5, 2})) << ::testing::PrintToString(ticks);

  const double narrow[] = {9.5, 3, 4, 1.2, 0, 2};  // within 20x: linear, steps of 2
  for (int i = 0; i < 6; ++i)
    if (d.trials[i].value) d.trials[i].value = narrow[i];
  ticks = AxisLabels(ConvergenceSvg(d));
  EXPECT_EQ(ticks, (std::vector<double>{8, 6, 4, 2})) << ::testing::PrintToString(ticks);

  ticks = AxisLabels(ConvergenceSvg(Study()));  // linear, 60-120 ms: steps of 20
  EXPECT_EQ(ticks, (std::vector<double>{120, 100, 80, 60})) << ::testing::PrintToString(ticks);
  // Each label sits at its value: 80 halfway between 60 and 100.
  const std::string svg = ConvergenceSvg(Study());
  auto label_y = [&](const std::string& label) {
    size_t at = svg.find("text-anchor=\"end\">" + label + "</text>");
    size_t y = svg.rfind("y=\"", at);
    return std::stod(svg.substr(y + 3));
  };
  EXPECT_NEAR(label_y("80"), (label_y("60") + label_y("100")) / 2, 0.2);
  EXPECT_NEAR(label_y("60") - 4, DotY(svg, 3), 0.2) << "the best dot, 60 ms, at the 60 tick";
  // Values an ulp apart (a mean of the same runs in another order): no round step fits, and the
  // ticks loop never ended (k / step past 2^53 does not advance).
  TuningReportData tie = Study();
  for (auto& t : tie.trials)
    if (t.value) t.value = 0.3;
  tie.trials[1].value = 0.1 + 0.2;
  ticks = AxisLabels(ConvergenceSvg(tie));
  EXPECT_GE(ticks.size(), 1u);
  EXPECT_LE(ticks.size(), 2u);
}

TEST(TuningReport, ParetoFrontIsATableOnlyWithSeveralObjectives) {
  TuningReportData d = Study();
  EXPECT_EQ(TuningReportHtml(d).find("Pareto front"), std::string::npos);
  d.pareto_objectives = {"latency_ms (min)", "mem_mb (min)"};
  d.pareto = {{3, {60, 900}, {{"threads", "4"}}}, {1, {80, 500}, {{"threads", "<2>"}}}};
  const std::string html = TuningReportHtml(d);
  EXPECT_NE(html.find("<th>latency_ms (min)</th><th>mem_mb (min)</th>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>3</td><td>60</td><td>900</td>"), std::string::npos);
  EXPECT_NE(html.find("threads=&lt;2&gt;"), std::string::npos);
}

TEST(TuningReport, PageHasResultImportanceAndEscapesNames) {
  std::string html = TuningReportHtml(Study());
  EXPECT_NE(html.find("Best: trial 3"), std::string::npos);
  // Trial 3 measured 60 once, then a mean of 61 when re-measured: the mean is what is reported.
  EXPECT_NE(html.find("<b>61</b> (re-measured mean, n=3)"), std::string::npos) << html;
  EXPECT_NE(html.find("+49.2% better"), std::string::npos) << "61 vs the default 120";
  EXPECT_NE(html.find("[58, 64]"), std::string::npos);
  EXPECT_LT(html.find(">threads<"), html.find(">format<"));
  EXPECT_EQ(html.find("<b>x</b>"), std::string::npos) << "parameter values are escaped";
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("one-way ANOVA on the log of the objective"), std::string::npos);
  // A value at or below zero: the importance is on the values, and the page says so (it said log).
  TuningReportData d = Study();
  d.trials[0].value = -8;
  EXPECT_NE(TuningReportHtml(d).find("one-way ANOVA on the objective (some values are not positive: no log)"),
            std::string::npos);
}

// The page words the change as the terminal does: positive = better than the default (it said
// "-49% with the best" where the terminal said "+49% better").
TEST(TuningReport, ImprovementReadsAsTheTerminalSaysIt) {
  TuningReportData d = Study();  // default 120, best re-measured at 61
  EXPECT_NE(TuningReportHtml(d).find("(+49.2% better with the best)"), std::string::npos);
  // Fresh runs can measure the pick below the default: that reads as worse, not "-3.0% better".
  EXPECT_EQ(ImprovementText(-3.04), "3.0% worse with the best");
  EXPECT_EQ(ImprovementText(12), "+12.0% better with the best");
  d.improvement_pct = -49.2;  // 61 against 120 when larger is better
  EXPECT_NE(TuningReportHtml(d).find("(49.2% worse with the best)"), std::string::npos);
}

// A configuration whose runs for the result all failed keeps its search value, said so; the
// summary computes no improvement between it and the other's fresh mean (it read "+49.2% better").
TEST(TuningReport, NoImprovementBetweenASearchValueAndAFreshMean) {
  TuningReportData d = Study();
  d.remeasured[1].n = 0;  // the default's fresh runs all failed: 120 is the search's
  d.trials[0].remeasured.reset();
  d.trials[0].fresh_runs_failed = true;
  d.improvement_pct.reset();
  std::string html = TuningReportHtml(d);
  EXPECT_EQ(html.find("better with the best"), std::string::npos);
  EXPECT_NE(html.find("the default gave 120 (the search&#39;s value: every run to re-measure it failed)"),
            std::string::npos)
      << html.substr(html.find("<h2>Result"), 600);
}

// The fresh runs that chose the recommendation are shown too, the chosen one marked, after the
// reported ones (the terminal lists them; the page had only the best and the default).
TEST(TuningReport, CandidatesThatChoseTheBestAreListed) {
  TuningReportData d = Study();
  EXPECT_EQ(TuningReportHtml(d).find("How the recommendation was chosen"), std::string::npos);
  d.remeasure_candidates = {{3, d.trials[3].params, 3, 59, 55, 63},
                            {5, d.trials[5].params, 3, 66, 60, 72},
                            {0, d.trials[0].params, 2, 118, 110, 126, /*raced_away=*/true}};
  const std::string html = TuningReportHtml(d);
  const size_t chosen_at = html.find("How the recommendation was chosen");
  ASSERT_NE(chosen_at, std::string::npos);
  EXPECT_LT(html.find("[58, 64]"), chosen_at) << "the reported runs come first";
  EXPECT_EQ(Count(html, "(chosen)"), 1u);
  EXPECT_NE(html.find("<tr><td>3 (chosen)</td>"), std::string::npos);
  EXPECT_NE(html.find("<td>66</td><td>[60, 72]</td><td>3</td>"), std::string::npos);
  EXPECT_NE(html.find("<tr><td>0 (stopped early: clearly worse)</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>118</td><td>[110, 126]</td><td>2</td>"), std::string::npos);
}

TEST(TuningReport, NoCompleteTrialSaysSo) {
  TuningReportData d;
  d.objective = "t";
  TuningReportTrial t;
  t.state = "failed";
  d.trials.push_back(t);
  EXPECT_NE(ConvergenceSvg(d).find("no complete trial"), std::string::npos);
  EXPECT_NE(TuningReportHtml(d).find("No trial completed"), std::string::npos);
}

}  // namespace
}  // namespace cprof
